{#-
  The audit trail's typed empty shells: one definition serves the audit models (which create
  them) and the k_anonymous materialization (which creates them itself if a release runs before
  they were ever built, and then inserts into them).
-#}
{% macro _audit_cells_shell() %}
  {%- set string = dbt.type_string() -%}
select
  cast(null as {{ string }}) as invocation_id,
  cast(null as {{ dbt.type_timestamp() }}) as released_at,
  cast(null as {{ string }}) as report,
  cast(null as {{ string }}) as report_unique_id,
  cast(null as {{ dbt.type_int() }}) as k,
  cast(null as {{ string }}) as policy_fingerprint,
  cast(null as {{ string }}) as cell_labels,
  cast(null as {{ dbt.type_bigint() }}) as people,
  cast(null as {{ string }}) as decision,
  cast(null as {{ dbt.type_int() }}) as ladder_step,
  cast(null as {{ string }}) as released_labels,
  cast(null as {{ string }}) as released_levels,
  cast(null as {{ dbt.type_bigint() }}) as released_people
where 1 = 0
{% endmacro %}

{% macro _audit_releases_shell() %}
  {%- set string = dbt.type_string() -%}
select
  cast(null as {{ string }}) as invocation_id,
  cast(null as {{ dbt.type_timestamp() }}) as released_at,
  cast(null as {{ string }}) as report,
  cast(null as {{ string }}) as report_unique_id,
  cast(null as {{ dbt.type_int() }}) as k,
  cast(null as {{ string }}) as policy_fingerprint,
  cast(null as {{ string }}) as count_column,
  cast(null as {{ string }}) as status,
  cast(null as {{ string }}) as reason,
  cast(null as {{ dbt.type_bigint() }}) as cells_in,
  cast(null as {{ dbt.type_bigint() }}) as cells_passed,
  cast(null as {{ dbt.type_bigint() }}) as cells_generalized,
  cast(null as {{ dbt.type_bigint() }}) as cells_suppressed,
  cast(null as {{ dbt.type_bigint() }}) as rows_released,
  cast(null as {{ dbt.type_bigint() }}) as people_suppressed,
  cast(null as {{ dbt.type_numeric() }}) as suppression_rate
where 1 = 0
{% endmacro %}

{#- The audit relations, wherever the project configured the audit models to live. -#}
{% macro _audit_relation(name) %}
  {%- set node = graph.nodes.get('model.kanon.' ~ name) -%}
  {%- if node is none -%}
    {{ exceptions.raise_compiler_error("kanon: the audit model " ~ name ~ " is missing or disabled; the k_anonymous materialization records every release there") }}
  {%- endif -%}
  {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) }}
{% endmacro %}
