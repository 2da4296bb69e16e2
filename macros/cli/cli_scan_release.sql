{#-
  dbt run-operation kanon.cli_scan_release --args '{report: circulation_by_branch_age_title, min_cell: 5}'

  What `python -m kanon_tools audit` reads: how many rows of a released model's published
  relation show fewer than min_cell people, NULL, NaN or infinite (the gate's condition,
  _count_below_k). The relation is the model's own, from the graph (wherever the project's
  schema configs put it). Counts only, never the rows' labels:
  {relation, count_column, rows, below, smallest, min_cell}, emitted as one KANON_JSON line.
  count_column: default the column the model's last release was checked on (audit trail), else
  'people'. Only reads (see _cli_read_only).
-#}
{% macro cli_scan_release(report, min_cell, count_column=none) %}
  {%- set who = 'kanon.cli_scan_release' -%}
  {%- do kanon._check_whole_number(min_cell, 'min_cell', who, minimum=2) -%}
  {%- if count_column is not none and (count_column is not string or count_column == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column must be a column name, got "
        ~ kanon._describe_value(count_column)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set node = kanon._cli_model(report, who) -%}
  {%- set relation = kanon._cli_model_relation(node, who) -%}
  {%- set columns = adapter.get_columns_in_relation(relation) | map(attribute='name') | list -%}
  {%- set ns = namespace(column=count_column, matched=none) -%}
  {%- if ns.column is none -%}
    {%- set ns.column = kanon._cli_last_count_column(node.unique_id) or 'people' -%}
  {%- endif -%}
  {#- DuckDB resolves quoted names case-insensitively, Postgres exactly. -#}
  {%- for name in columns if ns.matched is none -%}
    {%- if name == ns.column or (target.type != 'postgres' and name | lower == ns.column | lower) -%}
      {%- set ns.matched = name -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if ns.matched is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ relation ~ " has no column '" ~ ns.column ~ "' (its columns: "
        ~ columns | join(', ') ~ "); name the people-count column with count_column (--count-column)") }}
  {%- endif -%}
  {%- set column = adapter.quote(ns.matched) -%}
  {%- set sql -%}
    select
      count(*) as row_count,
      coalesce(sum(case when {{ kanon._count_below_k(column, min_cell) }} then 1 else 0 end), 0) as rows_below,
      min({{ column }}) as smallest
    from {{ relation }}
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {#- agate hands numbers back as Decimal, which JSON cannot carry: ints, and the smallest as text. -#}
  {%- do kanon._cli_emit({
      'relation': relation | string,
      'count_column': ns.column,
      'rows': row[0] | int,
      'below': row[1] | int,
      'smallest': none if row[2] is none else row[2] | string,
      'min_cell': min_cell,
  }) -%}
{% endmacro %}
