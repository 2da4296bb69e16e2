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
    the session like a temporary table); _drop_staging uncaches and drops it. The CTEs of the
    release's WITH run first, one statement each (_spark_stages says why). -#}
{% macro spark___create_staging_table_as(relation, sql) -%}
  {%- set sql_header = config.get('sql_header', none) -%}
  {%- if sql_header is not none -%}{%- do run_query(sql_header) -%}{%- endif -%}
  {#- only kanon's own SQL (a release macro's long form) is split: a hand-written model's CTE
      names may also be its column names -#}
  {%- set split = kanon._spark_stages(sql, relation.identifier ~ '__', kanon._spark_stage_scratch())
      if config.get('kanon_release_kind') else {'stages': [], 'select': sql} -%}
  {%- for stage in split.stages -%}
    {%- do run_query(stage) -%}
  {%- endfor -%}
  cache table {{ relation }} as
    {{ split.select }}
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

{#- Also its stages (tables in the private audit schema, temporary views), last first: a view is
    resolved when it is dropped, so what it reads must still be there. Their names sort in the
    order they were created. Then the scratch tables the model's search left (the table
    search's secondaries, which the release reads). -#}
{% macro spark___drop_staging(relation) %}
  {%- set scratch = kanon._spark_stage_scratch() -%}
  {%- set stages = [] -%}
  {#- show tables lists the session's temporary views too (third column: isTemporary) -#}
  {%- for row in run_query("show tables in " ~ kanon._quote(scratch.schema)
                            ~ " like '" ~ relation.identifier ~ "__*'") -%}
    {%- do stages.append((row[1], row[2])) -%}
  {%- endfor -%}
  {#- and what the model's searches left for the release to read (_scratch_table) -#}
  {%- set searched = [] -%}
  {%- for row in run_query("show tables in " ~ kanon._quote(scratch.schema)
                            ~ " like '_kanon_*_" ~ kanon._scratch_suffix() ~ "*'") -%}
    {%- do searched.append((row[1], row[2])) -%}
  {%- endfor -%}
  {% call statement('kanon_drop_staging') -%}
    uncache table if exists {{ kanon._quote(relation.identifier) }}
  {%- endcall %}
  {% call statement('kanon_drop_staging') -%}
    drop view if exists {{ kanon._quote(relation.identifier) }}
  {%- endcall %}
  {%- for name, temporary in (stages | sort(reverse=true)) + searched %}
  {% call statement('kanon_drop_staging') -%}
    {%- if temporary %}
    drop view if exists {{ kanon._quote(name) }}
    {%- else %}
    drop table if exists {{ kanon._quote(scratch.schema) }}.{{ kanon._quote(name) }}
    {%- endif %}
  {%- endcall %}
  {%- endfor %}
{% endmacro %}

{#- Where a release on Spark writes the stages it reads as tables: the private audit schema. -#}
{% macro _spark_stage_scratch() %}
  {{ return(kanon._audit_relation(kanon._audit_tables()[0][0])) }}
{% endmacro %}
