{#- Things a release cannot keep, said at release time rather than found out later. -#}

{#- Views on the mart: the swap renames the old release away and drops it, as dbt's own table
    materialization does, and Postgres drops the views that depend on it with it (DuckDB binds
    views by name and keeps them). Keep such views as dbt models downstream of the mart, so
    that `dbt build` recreates them after each release. -#}
{% macro _warn_dependent_views(existing_relation) %}
  {{ return(adapter.dispatch('_warn_dependent_views', 'kanon')(existing_relation)) }}
{% endmacro %}

{% macro default___warn_dependent_views(existing_relation) %}
{% endmacro %}

{% macro postgres___warn_dependent_views(existing_relation) %}
  {%- if existing_relation is none or existing_relation.type != 'table' -%}{{ return(none) }}{%- endif -%}
  {%- set found = run_query(
      "select distinct dependent.relname from pg_depend d"
      ~ " join pg_rewrite r on r.oid = d.objid join pg_class dependent on dependent.oid = r.ev_class"
      ~ " where d.refobjid = '" ~ (existing_relation | string | replace("'", "''")) ~ "'::regclass"
      ~ " and dependent.oid <> d.refobjid order by 1") -%}
  {%- if found.rows | length > 0 -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": " ~ (found.rows | length) ~ " view(s) depend on "
        ~ existing_relation ~ " (" ~ (found.columns[0].values() | join(', '))
        ~ "); the release replaces the table and Postgres drops them with the old one. Build them as dbt models"
        ~ " downstream of the mart so that dbt build recreates them.") -%}
  {%- endif -%}
{% endmacro %}

{#- DuckDB has no roles: a grants config cannot be applied there, and saying nothing would let a
    user believe the mart is restricted. Anyone who can read the database file reads everything. -#}
{% macro _warn_grants_unsupported(grant_config) %}
  {{ return(adapter.dispatch('_warn_grants_unsupported', 'kanon')(grant_config)) }}
{% endmacro %}

{% macro default___warn_grants_unsupported(grant_config) %}
{% endmacro %}

{% macro duckdb___warn_grants_unsupported(grant_config) %}
  {%- if grant_config -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": grants " ~ tojson(grant_config, sort_keys=true)
        ~ " are not applied: DuckDB has no roles, and whoever can read the database file can read every table in it,"
        ~ " the audit trail included.") -%}
  {%- endif -%}
{% endmacro %}

{#- Spark SQL's own catalog has no grants (`show grants` does not parse): access to a Spark
    release is the metastore's and the storage's business. Grants configured are not applied,
    with a warning (as on DuckDB); the release is not refused for them. -#}
{% macro spark___warn_grants_unsupported(grant_config) %}
  {%- if grant_config and (grant_config.values() | select | list) -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": grants " ~ tojson(grant_config, sort_keys=true)
        ~ " are not applied: Spark SQL has no grants of its own; control who reads the release's view, its version"
        ~ " tables and the audit trail's schema in the metastore and the storage.") -%}
  {%- endif -%}
{% endmacro %}

{#- The release's grants, as dbt's table materialization applies them; none on Spark (see
    spark___warn_grants_unsupported). -#}
{% macro _apply_release_grants(relation, grant_config, should_revoke) %}
  {{ return(adapter.dispatch('_apply_release_grants', 'kanon')(relation, grant_config, should_revoke)) }}
{% endmacro %}

{% macro default___apply_release_grants(relation, grant_config, should_revoke) %}
  {% do apply_grants(relation, grant_config, should_revoke=should_revoke) %}
{% endmacro %}

{% macro spark___apply_release_grants(relation, grant_config, should_revoke) %}
{% endmacro %}
