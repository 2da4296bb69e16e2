{#- Whether a column (an adapter Column) holds numbers. dbt's Column.is_number() knows the SQL
    standard's and Postgres's names only: it misses Spark's `int` and `tinyint`, DuckDB's
    unsigned and huge integers, and `real` where an adapter spells it so. -#}
{% macro _column_is_number(column) %}
  {%- set type = column.dtype | lower -%}
  {{ return(column.is_number()
      or type in ['int', 'tinyint', 'hugeint', 'uhugeint', 'ubigint', 'uinteger', 'usmallint', 'utinyint', 'real']
      or type.startswith('decimal') or type.startswith('numeric')) }}
{% endmacro %}
