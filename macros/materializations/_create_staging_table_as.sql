{#- The statement that runs the model's SQL into the temporary staging table. Written out rather
    than through get_create_table_as_sql: that one enforces the model's contract, which describes
    the published columns, not the staged long form with its audit rows. The model's sql_header
    is applied as create_table_as applies it, since this is the statement that runs the release. -#}
{% macro _create_staging_table_as(relation, sql) %}
  {{ return(adapter.dispatch('_create_staging_table_as', 'kanon')(relation, sql)) }}
{% endmacro %}

{% macro default___create_staging_table_as(relation, sql) -%}
  {%- set sql_header = config.get('sql_header', none) -%}
  {{ sql_header if sql_header is not none }}
  create temporary table {{ relation.include(database=false, schema=false) }} as (
    {{ sql }}
  )
{%- endmacro %}
