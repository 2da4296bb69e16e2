{#- A hand-made table long form for the gate's refusal fixtures: kanon's cells of the worked
    example with the primaries of `k` and the given secondaries hidden, and no search. -#}
{% macro tampered_table_release(events, k, secondaries) %}
  {%- if not execute -%}
    {{ return('select 1 as _kanon_parse_placeholder') }}
  {%- endif -%}
  {%- set plan = kanon._table_plan('tampered_table_release', events, 'user_id', none, none, 'day', 'action', k, 'people', false, false, 'Total', 'ignore') -%}
  {%- set search = {'secondaries': secondaries, 'cells': 24, 'primary': 4, 'secondary': secondaries | length,
      'published': 20 - secondaries | length, 'non_additive': 0, 'rounds': 0, 'seconds': 0, 'refused': none} -%}
  {{ return(kanon._table_long_form(plan, search, kanon._table_policy(plan, search))) }}
{% endmacro %}
