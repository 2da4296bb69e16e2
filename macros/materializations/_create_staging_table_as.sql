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

{#- Spark has no temporary tables: a temporary view, cached (computed once, now, and private to
    the session like a temporary table); _drop_staging uncaches and drops it. -#}
{% macro spark___create_staging_table_as(relation, sql) -%}
  {%- set sql_header = config.get('sql_header', none) -%}
  {{ sql_header if sql_header is not none }}
  cache table {{ relation }} as
    {{ sql }}
{%- endmacro %}

{#- The staging relation as the warehouse names it: Spark's temporary views live outside any
    schema, so its name carries none. -#}
{% macro _staging_relation(relation) %}
  {{ return(adapter.dispatch('_staging_relation', 'kanon')(relation)) }}
{% endmacro %}

{% macro default___staging_relation(relation) %}
  {{ return(relation) }}
{% endmacro %}

{% macro spark___staging_relation(relation) %}
  {{ return(relation.include(database=false, schema=false)) }}
{% endmacro %}

{#- Drops the staging table (Spark: uncaches and drops its view), in the release's transaction. -#}
{% macro _drop_staging(relation) %}
  {{ return(adapter.dispatch('_drop_staging', 'kanon')(relation)) }}
{% endmacro %}

{% macro default___drop_staging(relation) %}
  {% call statement('kanon_drop_staging') -%}
    drop table {{ relation }}
  {%- endcall %}
{% endmacro %}

{% macro spark___drop_staging(relation) %}
  {% call statement('kanon_uncache_staging') -%}
    uncache table if exists {{ relation }}
  {%- endcall %}
  {% call statement('kanon_drop_staging') -%}
    drop view if exists {{ relation }}
  {%- endcall %}
{% endmacro %}
