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

{#- A hand-made linked table: `events` by day x branch released as if alone (kanon's search of
    the table alone: its pattern and statuses), but recording that it is linked to `linked`, so
    that the gate checks it together with the linked table. -#}
{% macro tampered_linked_release(events, linked) %}
  {%- if not execute -%}
    {{ return('select 1 as _kanon_parse_placeholder') }}
  {%- endif -%}
  {%- set alone = kanon._table_plan('tampered_linked_release', events, 'person', none, none, 'day', 'branch', 5, 'people', false, false,
      'Total', 'ignore') -%}
  {#- the link as release_table records it (by hand: that release links to the same table) -#}
  {%- set claimed = dict(alone) -%}
  {%- do claimed.update({'linked': {'relation': linked | string, 'model': linked.identifier, 'dimension': 'kind', 'column': 'kind',
      'hierarchical': false, 'top': 1, 'glued': 1, 'columns': ['day', 'kind'], 'count_column': 'people'}}) -%}
  {%- set search = kanon._table_search(alone) -%}
  {{ return(kanon._table_long_form(alone, search, kanon._table_policy(claimed, search))) }}
{% endmacro %}
