{#-
  dbt run-operation kanon.cli_table_cells --args '{report: table_worked}'

  What `python -m kanon_tools attack` reads: every published row of a table released by
  kanon.release_table, from the model's own relation (the graph says where), and what a reader
  of that table is told: k (the model's config, in the `<k` marks) and whether zeros are hidden
  too (recorded in the model's config when it was parsed). Only what the mart publishes: labels,
  levels, the published count (NULL when hidden), status and additive; never a hidden count, which
  the mart does not hold. Emits one KANON_JSON line {relation, k, zeros_hidden, row, column,
  count_column, cells: [[row label, row level, column label, column level, count, status,
  additive]]}. Refuses, in one line, a model that is missing, not built or not a table release.
  Only reads (see _cli_read_only).
-#}
{% macro cli_table_cells(report) %}
  {%- set who = 'kanon.cli_table_cells' -%}
  {%- if report is not string or report | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": report must be a released model's name, got " ~ kanon._describe_value(report)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set node = kanon._cli_model(report | trim, who) -%}
  {%- if node.config.get('kanon_release_kind') != 'table' -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ node.unique_id ~ " is not a table released by kanon.release_table") }}
  {%- endif -%}
  {%- set relation = kanon._cli_model_relation(node, who) -%}
  {#- the two dimensions are the columns published beside their _level column, in order -#}
  {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
  {%- set dimensions = [] -%}
  {%- for name in columns if name ~ '_level' in columns -%}{%- do dimensions.append(name) -%}{%- endfor -%}
  {%- set count_column = node.config.get('count_column') or 'people' -%}
  {%- for needed in [count_column, 'status', 'additive'] if needed not in columns -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " has no column '" ~ needed ~ "' (its columns: " ~ columns | join(', ') ~ ")") }}
  {%- endfor -%}
  {%- if dimensions | length != 2 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " does not have two dimensions with their _level columns (its columns: " ~ columns | join(', ') ~ ")") }}
  {%- endif -%}
  {%- set q = kanon._quote -%}
  {%- set sql -%}
    select {{ q(dimensions[0]) }}, {{ q(dimensions[0] ~ '_level') }}, {{ q(dimensions[1]) }}, {{ q(dimensions[1] ~ '_level') }},
      {{ q(count_column) }}, {{ q('status') }}, {{ q('additive') }}
    from {{ relation }}
  {%- endset -%}
  {#- agate hands numbers back as Decimal, which JSON cannot carry -#}
  {%- set cells = [] -%}
  {%- for row in run_query(sql).rows -%}
    {%- do cells.append([row[0], row[1] | int, row[2], row[3] | int, none if row[4] is none else row[4] | int, row[5], row[6]]) -%}
  {%- endfor -%}
  {%- do kanon._cli_emit({
      'relation': relation | string,
      'k': node.config.get('k'),
      'zeros_hidden': node.config.get('kanon_table', {}).get('hide_zeros', false) is sameas true,
      'row': dimensions[0],
      'column': dimensions[1],
      'count_column': count_column,
      'cells': cells,
  }) -%}
{% endmacro %}
