{#-
  dbt run-operation kanon.cli_table_cells --args '{report: table_worked}'

  What `python -m kanon_tools attack` reads: every published row of a table released by
  kanon.release_table, from the model's own relation (the graph says where), and what a reader
  of that table is told: k (the model's config, in the `<k` marks) and whether zeros are hidden
  too (recorded in the model's config when it was parsed). Only what the mart publishes: per
  dimension the node's label, level and (with a hierarchy) parent's label, the published count
  (NULL when hidden), status and, per dimension, whether the cell is the sum of its children
  along it; never a hidden count, which the mart does not hold.

  The dimensions are the columns published beside a <d>_level column, in the mart's order; one
  with a <d>_parent column has a hierarchy. Emits one KANON_JSON line
    {relation, k, zeros_hidden, protection (the width release_table promised, or null), noisy (released
     with noise: its counts are perturbed and its totals not additive), count_column,
     dimensions: [{name, hierarchical}],
     cells: [[[[label, level, parent label or null], ... one per dimension], count or null, status,
              [additive (true, false or null at a leaf), ... one per dimension]]]}
  (numbers as integers). Refuses, in one line, a model that is missing, not built or not a table
  release, and a mart without a dimension or without a column it needs. Only reads (see
  _cli_read_only).
-#}
{% macro cli_table_cells(report) %}
  {%- set who = 'kanon.cli_table_cells' -%}
  {%- if report is not string or report | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": report must be a released model's name, got "
        ~ kanon._describe_value(report)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set node = kanon._cli_model(report | trim, who) -%}
  {%- if node.config.get('kanon_release_kind') != 'table' -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ node.unique_id
        ~ " is not a table released by kanon.release_table") }}
  {%- endif -%}
  {%- do kanon._cli_emit(kanon._cli_table_grid(node, kanon._cli_model_relation(node, who), who)) -%}
{% endmacro %}

{#- The grid a table release's model publishes (relation: its mart): {relation, k, zeros_hidden,
    protection, count_column, dimensions, cells} as cli_table_cells emits it; shared with
    cli_report. Raises, naming `who`, when the mart lacks a dimension or a column it needs. -#}
{% macro _cli_table_grid(node, relation, who) %}
  {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
  {%- set dimensions = [] -%}
  {%- for name in columns if name ~ '_level' in columns -%}
    {%- do dimensions.append({'name': name, 'hierarchical': name ~ '_parent' in columns}) -%}
  {%- endfor -%}
  {%- if dimensions | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " has no dimension (no column published beside its"
        ~ " <dimension>_level column; its columns: " ~ columns | join(', ') ~ ")") }}
  {%- endif -%}
  {%- set count_column = node.config.get('count_column') or 'people' -%}
  {%- set needed = [count_column, 'status'] -%}
  {%- for d in dimensions -%}{%- do needed.append(d.name ~ '_additive') -%}{%- endfor -%}
  {%- for name in needed if name not in columns -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " has no column '" ~ name ~ "' (its columns: "
        ~ columns | join(', ') ~ ")") }}
  {%- endfor -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {#- per dimension: label, level, parent label (NULL for a flat one); then count, status; then
      the additive flags. Labels as text whatever the column's type: JSON carries no Decimal. -#}
  {%- set selected = [] -%}
  {%- for d in dimensions -%}
    {%- do selected.append('cast(' ~ q(d.name) ~ ' as ' ~ string ~ ')') -%}
    {%- do selected.append(q(d.name ~ '_level')) -%}
    {%- do selected.append(('cast(' ~ q(d.name ~ '_parent') ~ ' as ' ~ string ~ ')') if d.hierarchical
                           else ('cast(null as ' ~ string ~ ')')) -%}
  {%- endfor -%}
  {#- a published cell's count only: a hidden one's is never read, whatever the mart holds -#}
  {%- do selected.extend(["case when " ~ q('status') ~ " = 'published' then " ~ q(count_column) ~ " end",
                          q('status')]) -%}
  {%- for d in dimensions -%}{%- do selected.append(q(d.name ~ '_additive')) -%}{%- endfor -%}
  {%- set sql -%}
    select {{ selected | join(', ') }}
    from {{ relation }}
  {%- endset -%}
  {%- set n = dimensions | length -%}
  {%- set cells = [] -%}
  {%- for row in run_query(sql).rows -%}
    {%- set nodes = [] -%}
    {%- set additive = [] -%}
    {%- for i in range(n) -%}
      {#- agate hands numbers back as Decimal, which JSON cannot carry -#}
      {%- do nodes.append([row[3 * i], row[3 * i + 1] | int, row[3 * i + 2]]) -%}
      {%- set flag = row[3 * n + 2 + i] -%}
      {#- a warehouse without booleans may hand back 1 / 0 -#}
      {%- do additive.append(none if flag is none else flag in [true, 1]) -%}
    {%- endfor -%}
    {%- set count = row[3 * n] -%}
    {%- do cells.append([nodes, none if count is none else count | int, row[3 * n + 1], additive]) -%}
  {%- endfor -%}
  {{ return({
      'relation': relation | string,
      'k': node.config.get('k'),
      'zeros_hidden': node.config.get('kanon_table', {}).get('hide_zeros', false) is sameas true,
      'protection': node.config.get('kanon_table', {}).get('protection'),
      'noisy': node.config.get('kanon_table', {}).get('noisy') is sameas true,
      'count_column': count_column,
      'dimensions': dimensions,
      'cells': cells,
  }) }}
{% endmacro %}
