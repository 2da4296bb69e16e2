{#- The cli_ macros only read, and on Postgres say so to the server first: every later statement
    of the session runs in a read-only transaction, so none can write whatever it is. dbt-duckdb
    always opens its file read-write and DuckDB has no such session switch: there the macros'
    own statements (selects, and the adapter's catalog lookups) are the guarantee. -#}
{% macro _cli_read_only() %}
  {%- if target.type == 'postgres' -%}
    {%- do run_query('set session characteristics as transaction read only') -%}
  {%- endif -%}
{% endmacro %}
