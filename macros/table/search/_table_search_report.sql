{#-
  The end of the table search (_table_search): what it did, and the secondaries kept.

  reads   `numbered` (every cell's status and lines)
  writes  `secondaries` (the hidden cells' keys, _k_l<i> and _k_k<i>: kept for the model's SQL,
          which runs in the same session right after it compiles), and drops every other
          scratch table of the search
  returns the search's result (see _table_search)
-#}
{% macro _table_search_report(plan, search) %}
  {%- set t = search.tables -%}
  {%- set keys = [] -%}
  {%- for i in range(search.n) -%}{%- do keys.append('_k_l' ~ i ~ ', _k_k' ~ i) -%}{%- endfor -%}
  {%- set counts = [0, 0, 0, 0, 0] -%}
  {%- if search.built -%}
    {%- do kanon._scratch_create(t.secondaries, 'select ' ~ (keys | join(', ')) ~ ' from ' ~ t.numbered
        ~ " where _k_status = 'secondary'") -%}
    {#- a noisy table's totals are all perturbed, none the sum of its parts as published -#}
    {%- set non_additive = [] -%}
    {%- for i in range(search.n) -%}
      {%- do non_additive.append(('_k_l' ~ i ~ ' > 0') if plan.get('noise') is not none else ('not _k_add' ~ i)) -%}
    {%- endfor -%}
    {%- set counts = run_query("select count(*), "
        ~ "coalesce(sum(case when _k_status = 'primary' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when _k_status = 'secondary' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when " ~ (non_additive | join(' or ')) ~ " then 1 else 0 end), 0) from " ~ t.numbered
        ~ " as _k_t where " ~ kanon._table_own_cell(plan, '_k_t')).rows[0] -%}
  {%- else -%}
    {%- do kanon._scratch_create(t.secondaries, kanon._table_no_cells(search.n)) -%}
  {%- endif -%}
  {%- do kanon._search_drop(search.scratch) -%}
  {{ return({'secondaries': t.secondaries, 'cells': counts[0] | int, 'primary': counts[1] | int,
      'secondary': counts[2] | int, 'published': counts[3] | int, 'non_additive': counts[4] | int,
      'rounds': search.rounds, 'refused': search.refused, 'bounds': search.bounds,
      'seconds': kanon._search_seconds(search.started)}) }}
{% endmacro %}

{#- A select of no cells, with the key columns of n dimensions (_k_l<i>, _k_k<i>). -#}
{% macro _table_no_cells(n) -%}
  select {% for i in range(n) %}0 as _k_l{{ i }}, cast('' as {{ dbt.type_string() }}) as _k_k{{ i }}
  {%- if not loop.last %}, {% endif %}{% endfor %} where 1 = 0
{%- endmacro %}
