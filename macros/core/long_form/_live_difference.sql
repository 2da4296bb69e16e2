{#-
  A table or record release compared with what readers see now: the report's live relation,
  the previous release (ADR 12). A count release compares with the trail's published groups
  (engine/_counts_difference_ctes.sql); a table keeps only its hidden cells on the trail, and a
  record release no group at all, so these read the live relation, which holds exactly what the
  previous release published.

  Each published row (a table's cell or total; a record release's class of records, sized in
  records: the published extract carries no privacy unit) is matched on its key columns, NULL
  matching NULL, and its value now (NULL: hidden, or absent) with the value shown before. A
  change of 1 to k-1 is a small change: whoever knows of one new person can place them (a
  table's day and action totals rising by one around a hidden cell say which cell it was).

    _k_live_rows      the live relation's rows: keys as text, the value shown
    _k_live_compared  every key of either side, with the value now and before

  rows: [(key column name, SQL of the key now)], the new rows' value SQL and the new rows' source
  (a relation or CTE with a where clause); group: whether rows are counted per key (records)
  rather than read off (a table's count). None when there is nothing live to compare with, or
  the live relation lacks a key or value column (not a release of this shape): the facts are
  then NULL.
-#}
{% macro _live_difference_ctes(live, keys, value, source, value_column, group) %}
  {%- if live is none -%}{{ return('') }}{%- endif -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set have = adapter.get_columns_in_relation(live) | map(attribute='name') | map('lower') | list -%}
  {%- for name, expression in keys if (name | lower) not in have -%}{{ return('') }}{%- endfor -%}
  {%- if value_column is not none and (value_column | lower) not in have -%}{{ return('') }}{%- endif -%}
  {%- set before = ('count(*)' if group else q(value_column)) -%}
  _k_live_rows as (
    select
      {%- for name, expression in keys %}
      coalesce(cast({{ q(name) }} as {{ string }}), {{ nk }}) as _k_key{{ loop.index0 }},
      {%- endfor %}
      {{ before }} as _k_value
    from {{ live }}
    {%- if group %}
    group by {% for name, expression in keys %}{% if not loop.first %}, {% endif %}{{ q(name) }}{% endfor %}
    {%- endif %}
  ),
  _k_new_rows as (
    select
      {%- for name, expression in keys %}
      coalesce(cast({{ expression }} as {{ string }}), {{ nk }}) as _k_key{{ loop.index0 }},
      {%- endfor %}
      {{ value }} as _k_value
    from {{ source }}
    {%- if group %}
    group by {% for name, expression in keys %}{% if not loop.first %}, {% endif %}{{ expression }}{% endfor %}
    {%- endif %}
  ),
  _k_live_compared as (
    select _k_now._k_value as _k_now, _k_before._k_value as _k_before
    from _k_new_rows as _k_now
    full outer join _k_live_rows as _k_before on
      {%- for name, expression in keys %}
      {% if not loop.first %}and {% endif %}_k_now._k_key{{ loop.index0 }} = _k_before._k_key{{ loop.index0 }}
      {%- endfor %}
  )
{%- endmacro %}

{#- The comparison's facts (each `union all select ...`), NULL when there was nothing to compare
    with (ctes is ''): rows shown both times, changed by 1 to k-1 (its text: on_small_change,
    which the gate's check small_change reads), shown now and not before, shown before and not
    now. Nothing is held: a table's totals must add up, and a class is not a row to hold. -#}
{% macro _live_difference_facts(nulls, ctes, k, on_small_change) %}
  {%- set text = kanon._sql_text(on_small_change) -%}
  {%- if not ctes -%}
    {%- for name in ['rows_compared', 'rows_changed_small', 'rows_appeared', 'rows_disappeared'] %}
union all
{{ kanon._long_form_fact(nulls, name, 'null', text if name == 'rows_changed_small' else 'null') }}
    {%- endfor %}
    {{ return('') }}
  {%- endif -%}
  {%- set both = '_k_now is not null and _k_before is not null' -%}
  {{ kanon._long_form_facts_from(nulls, '_k_live_compared', [
      ('rows_compared', 'coalesce(sum(case when ' ~ both ~ ' then 1 else 0 end), 0)'),
      ('rows_changed_small', 'coalesce(sum(case when ' ~ both ~ ' and _k_now <> _k_before and _k_now - _k_before < ' ~ k
          ~ ' and _k_before - _k_now < ' ~ k ~ ' then 1 else 0 end), 0)', text),
      ('rows_appeared', 'coalesce(sum(case when _k_now is not null and _k_before is null then 1 else 0 end), 0)'),
      ('rows_disappeared', 'coalesce(sum(case when _k_now is null and _k_before is not null then 1 else 0 end), 0)')
    ]) }}
{%- endmacro %}
