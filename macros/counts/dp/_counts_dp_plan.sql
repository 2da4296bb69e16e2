{#-
  A count release with noise mode 'dp', checked against what its guarantee needs before anything
  runs (docs/reference/noise.md, "Differential privacy"): the published cells fixed in advance
  (cells or levels, never chosen from the data, so no ladder, remainder or dominance rule: a
  generalization chosen from true counts is not differentially private), every number noised (no
  measures, no count_rows: refused by _counts_plan), the budget kept on the audit trail (so
  k_anonymous only) and not exceeded, and no gate decision on true counts (no max_suppression, no
  holding or refusing on small changes). Resolves the declared levels into plan.steps (one step)
  and the budget's source, and returns the plan.
-#}
{% macro _counts_dp_plan(plan, ladder, remainder, dominance, on_small_change, who) %}
  {%- set noise = plan.noise -%}
  {%- set why = " is refused with noise mode 'dp': " -%}
  {%- if config.get('materialized') != 'k_anonymous' -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise mode 'dp' spends a privacy budget kept on the audit trail,"
        ~ " which only the k_anonymous materialization keeps; configure the model materialized='k_anonymous'") }}
  {%- endif -%}
  {%- for name, given in [('ladder', ladder is not none), ('remainder', remainder),
        ('dominance', dominance is not none),
        ("on_small_change='" ~ on_small_change ~ "'", on_small_change != 'report'),
        ('max_suppression', config.get('max_suppression') is not none)] if given -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ name ~ why ~ "it decides on true counts, and a decision on true"
        ~ " counts is not differentially private. The published cells are fixed in advance (noise's cells or levels),"
        ~ " every one is noised, and the k rule applies to the noisy counts") }}
  {%- endfor -%}
  {%- for name in noise.levels if name not in (plan.dims | map(attribute='name') | list) -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's levels names '" ~ name
        ~ "', which is not one of the dimensions " ~ (plan.dims | map(attribute='name') | join(', '))) }}
  {%- endfor -%}
  {%- set levels = [] -%}
  {%- for d in plan.dims -%}
    {%- set level = kanon._check_whole_number(noise.levels.get(d.name, 0), "noise's level of '" ~ d.name ~ "'", who,
                                              0, d.depth) -%}
    {%- if noise.cells is none and d.hierarchy is none -%}
      {{ exceptions.raise_compiler_error(who ~ ": dimension '" ~ d.name
          ~ "' has no hierarchy, so noise's levels cannot list its values without reading the data; give noise's cells,"
          ~ " a relation of the published cells") }}
    {%- endif -%}
    {%- do levels.append(level) -%}
  {%- endfor -%}
  {%- do plan.update({'steps': [levels]}) -%}
  {%- set named = {} -%}
  {%- for d in plan.dims -%}{%- do named.update({d.name: levels[loop.index0]}) -%}{%- endfor -%}
  {%- do noise.update({'levels': named,
      'budget_source': noise.budget_source or (plan.relation | string), 'budget_unit': plan.privacy_unit}) -%}
  {%- if execute -%}
    {%- if noise.cells is not none -%}{%- do kanon._counts_dp_check_cells(plan, who) -%}{%- endif -%}
    {%- do kanon._noise_dp_check_budget(noise, who) -%}
  {%- endif -%}
  {{ return(plan) }}
{% endmacro %}

{#- The declared cells: a column per dimension (resolved as the dimensions are), no NULL, no
    cell twice. Counts only in messages, never a label. Records the columns in noise.cell_columns. -#}
{% macro _counts_dp_check_cells(plan, who) %}
  {%- set noise = plan.noise -%}
  {%- set source = kanon._relation_columns(noise.cells, who) -%}
  {%- set columns = [] -%}
  {%- for d in plan.dims -%}
    {%- do columns.append(kanon._resolve_column(d.name, source.columns, "noise's cells column", noise.cells, who)) -%}
  {%- endfor -%}
  {%- set quoted = [] -%}
  {%- for column in columns -%}{%- do quoted.append(kanon._quote(column)) -%}{%- endfor -%}
  {%- set row = run_query("select count(*), sum(case when " ~ (quoted | join(' is null or '))
      ~ " is null then 1 else 0 end), (select count(*) from (select distinct " ~ (quoted | join(', '))
      ~ " from " ~ noise.cells ~ ") as _k_distinct) from " ~ noise.cells).rows[0] -%}
  {%- if row[0] == 0 or (row[1] or 0) > 0 or row[2] != row[0] -%}
    {{ exceptions.raise_compiler_error(who ~ ": noise's cells " ~ noise.cells
        ~ " must list each published cell once, with no NULL: it has " ~ row[0] ~ " rows, " ~ (row[1] or 0)
        ~ " with a NULL and " ~ row[2] ~ " distinct") }}
  {%- endif -%}
  {%- do noise.update({'cell_columns': columns}) -%}
{% endmacro %}
