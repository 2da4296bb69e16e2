{#-
  kanon's run hooks (dbt_project.yml; _audit_trail.sql has the trail's life cycle): on-run-start
  creates the trail before any release runs, on-run-end takes back what the invocation granted
  on it and records the releases dbt's own errors kept from their gate.
-#}

{#- kanon's on-run-start hook (dbt_project.yml): dbt runs a package's hooks in the host
    project's invocation, after the host's own on-run-start hooks and before any model. When the invocation
    selects a k_anonymous model, it creates the trail (or adds its new columns) here, once, so
    that releases running in parallel threads never race to create it. It does nothing else:
    where the trail would share a schema with another node it leaves it uncreated, and every
    release refuses with the reason. Renders no SQL of its own. -#}
{% macro _audit_trail_on_run_start() %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set ns = namespace(releases=false) -%}
  {%- for unique_id in selected_resources if not ns.releases -%}
    {%- set node = graph.nodes.get(unique_id) -%}
    {%- if node is not none and node.resource_type == 'model' and node.config.materialized == 'k_anonymous' -%}
      {%- set ns.releases = true -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set tables = kanon._audit_trail_tables() if ns.releases else none -%}
  {%- if tables -%}
    {%- set apart = [] -%}
    {%- for relation, which in tables if not kanon._audit_trail_neighbours(relation) -%}
      {%- do apart.append(relation) -%}
    {%- endfor -%}
    {%- if apart | length == tables | length -%}
      {%- do kanon._build_audit_trail(tables) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}

{#- kanon's on-run-end hook (dbt_project.yml). dbt runs it after the host project's own
    on-run-end hooks, so a host hook granting every table of every schema it built (`grant select
    on all tables in schema ...`), or any grant made on the trail during the invocation, is
    revoked here, at once, and said (Postgres; DuckDB has no roles). One query when there is
    nothing to revoke. Then, the trail private again, a release refused before its gate ran (its
    model failed to compile) is put on it (_audit_record_unrecorded_refusals). Renders no SQL. -#}
{% macro _audit_trail_on_run_end(results=none) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set tables = kanon._audit_trail_tables() -%}
  {%- if tables -%}
    {%- set relations = tables | map(attribute=0) | list -%}
    {%- set state = kanon._audit_trail_state(relations) -%}
    {%- if state.foreign -%}
      {{ log("kanon: WARNING: on-run-end: revoked from the private audit trail: "
          ~ kanon._audit_trail_describe_grants(state.foreign), info=true) }}
      {%- set present = [] -%}
      {%- for relation in relations if relation not in state.missing + state.views + state.not_tables -%}
        {%- do present.append(relation) -%}
      {%- endfor -%}
      {%- do kanon._make_audit_trail_private(present, state.foreign) -%}
      {%- do adapter.commit() -%}
    {%- endif -%}
    {#- once the trail is private again -#}
    {%- if not (state.missing or state.views or state.not_tables) -%}
      {%- do kanon._audit_record_unrecorded_refusals(kanon._audit_relation('kanon_audit_releases'), results) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return('') }}
{% endmacro %}
