{#-
  kanon.release_table's arguments, checked and resolved into a plan before anything runs: the
  two dimensions (row and column) with their real column names, the privacy unit (or the
  explicit opt-in to count rows), k, the published column names and the options. Every error
  names the macro the user called (`who`), the model and the argument.
-#}
{% macro _table_plan(who, relation, privacy_unit, row_dimension, column_dimension, k, count_column, count_rows, hide_zeros, total_label, null_unit) %}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- do kanon._check_k(k, who) -%}
  {%- do kanon._check_boolean(count_rows, 'count_rows', who) -%}
  {%- do kanon._check_boolean(hide_zeros, 'hide_zeros', who) -%}
  {%- do kanon._check_enum(null_unit, 'null_unit', ['ignore', 'error'], who) -%}
  {%- do kanon._check_column_name(row_dimension, 'row_dimension', who) -%}
  {%- do kanon._check_column_name(column_dimension, 'column_dimension', who) -%}
  {%- do kanon._check_column_name(count_column, 'count_column', who) -%}
  {%- if total_label is not string or total_label | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": total_label must be a non-empty text, got " ~ kanon._describe_value(total_label)) }}
  {%- endif -%}
  {%- if privacy_unit is not none -%}
    {%- do kanon._check_column_name(privacy_unit, 'privacy_unit', who) -%}
  {%- elif not count_rows -%}
    {{ exceptions.raise_compiler_error(who ~ ": privacy_unit (the column identifying a person) is required; counting rows instead needs count_rows=true") }}
  {%- endif -%}
  {%- if count_rows and privacy_unit is not none -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_rows=true counts rows, not the people of privacy_unit; give one of them") }}
  {%- endif -%}
  {#- With zeros shown a primary mark says 0 < x < k: for k=2 that is x = 1, the value itself. -#}
  {%- if k == 2 and not hide_zeros -%}
    {{ exceptions.raise_compiler_error(who ~ ": with k=2 and zeros shown, a hidden cell marked <2 can only hold 1, so the mark "
        ~ "publishes the value; use k >= 3, or hide_zeros=true") }}
  {%- endif -%}

  {#- Published columns: each dimension, <dimension>_level, the count, status, display, additive. -#}
  {%- set outputs = [('row_dimension', row_dimension), ('level column of ' ~ row_dimension, row_dimension ~ '_level'),
      ('column_dimension', column_dimension), ('level column of ' ~ column_dimension, column_dimension ~ '_level'),
      ('count_column', count_column), ('the status column', 'status'), ('the display column', 'display'),
      ('the additive column', 'additive')] -%}
  {%- do kanon._check_published_columns(outputs, who, 'each dimension, <dimension>_level, the count column, status, display and additive') -%}

  {#- The relation's real column names, as the warehouse resolves them. -#}
  {%- set source = kanon._relation_columns(relation, who) -%}
  {%- set unit = kanon._resolve_column(privacy_unit, source.columns, 'privacy_unit', relation, who) if privacy_unit is not none else none -%}
  {%- set row = kanon._resolve_column(row_dimension, source.columns, 'row_dimension', relation, who) -%}
  {%- set column = kanon._resolve_column(column_dimension, source.columns, 'column_dimension', relation, who) -%}
  {%- if row == column -%}
    {{ exceptions.raise_compiler_error(who ~ ": row_dimension and column_dimension are the same column '" ~ row ~ "'") }}
  {%- endif -%}
  {%- for argument, name in [('row_dimension', row), ('column_dimension', column)] -%}
    {%- if unit is not none and name == unit -%}
      {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " '" ~ name ~ "' is the privacy unit; breaking down by it would publish one line per person") }}
    {%- endif -%}
    {#- Labels are compared as text, and warehouses write floats as text differently (2.0 / 2). -#}
    {%- if name in source.floats -%}
      {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " '" ~ name ~ "' is a floating-point column; "
          ~ "cast it to text, an integer or a fixed-point decimal first so every warehouse labels it alike") }}
    {%- endif -%}
  {%- endfor -%}

  {{ return({
      'who': who,
      'relation': relation,
      'privacy_unit': unit,
      'count_rows': count_rows,
      'row': {'name': row_dimension, 'column': row},
      'column': {'name': column_dimension, 'column': column},
      'k': k,
      'count_column': count_column,
      'hide_zeros': hide_zeros,
      'total_label': total_label,
      'null_unit': null_unit,
  }) }}
{% endmacro %}
