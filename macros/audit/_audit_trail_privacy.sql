{#-
  The audit trail's privacy (_audit_trail.sql has the trail's life cycle). A new table is made
  private in the transaction that creates it; the audit models revoke every privilege of any
  other role on each run, and kanon's on-run-end hook what the invocation granted; a release
  refuses while another role holds one (Postgres; DuckDB has no roles). The only readers kanon
  grants are the roles of the var kanon_audit_readers (SELECT only). Creators take a lock, and
  nothing else the project builds may share the trail's schema: the audit models and every
  release refuse, naming what does.
-#}

{#- The roles the var kanon_audit_readers names (Postgres): the only roles kanon lets read the
    trail, with SELECT and nothing else. -#}
{% macro _audit_trail_readers() %}
  {%- set readers = var('kanon_audit_readers', []) -%}
  {%- if readers is string or readers is mapping or readers is not iterable -%}
    {{ exceptions.raise_compiler_error("kanon: the var kanon_audit_readers must be a list of role names, got "
        ~ readers) }}
  {%- endif -%}
  {%- for reader in readers if reader is not string or (reader | trim) == '' -%}
    {{ exceptions.raise_compiler_error("kanon: the var kanon_audit_readers must be a list of role names, got "
        ~ readers) }}
  {%- endfor -%}
  {{ return(readers | list) }}
{% endmacro %}

{#- The nodes the project builds in the schema of an audit relation (models other than
    ephemeral, seeds, snapshots), the audit models excepted. From the graph: no query. -#}
{% macro _audit_trail_neighbours(relation) %}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values()
        if node.resource_type in ['model', 'seed', 'snapshot']
        and node.config.materialized != 'ephemeral'
        and not (node.package_name == 'kanon' and node.name in kanon._audit_model_names())
        and (node.schema | lower) == (relation.schema | lower)
        and ((node.database or '') | lower) == ((relation.database or '') | lower) -%}
    {%- do found.append(node.unique_id) -%}
  {%- endfor -%}
  {{ return(found | sort) }}
{% endmacro %}

{#- Raises unless the audit relations have a schema of their own: not the schema of `mart` (the
    release calling, or none) nor of anything else the project builds. `doing` says what was
    refused ("release model.x.y", "build model.kanon.kanon_audit_groups"). -#}
{% macro _audit_trail_check_apart(relations, mart, doing) %}
  {%- for relation in relations -%}
    {%- set schema_of = '"' ~ relation.schema ~ '"' -%}
    {%- if mart is not none and (mart.schema | lower) == (relation.schema | lower)
          and ((mart.database or '') | lower) == ((relation.database or '') | lower) -%}
      {%- set shared = 'the mart ' ~ mart ~ ' itself' -%}
    {%- else -%}
      {%- set neighbours = kanon._audit_trail_neighbours(relation) -%}
      {%- set shared = (neighbours[:5] | join(', '))
          ~ (' and ' ~ (neighbours | length - 5) ~ ' more' if neighbours | length > 5 else '') -%}
    {%- endif -%}
    {%- if shared -%}
      {{ exceptions.raise_compiler_error(
          "kanon: refused to " ~ doing ~ ": the audit trail " ~ relation ~ " would share schema " ~ schema_of
          ~ " with " ~ shared ~ ", next to what report readers are granted, and the trail names every thin cell."
          ~ " Nothing was published or created. Give the trail a schema of its own: set the var kanon_audit_schema"
          ~ " (the trail lives in <target schema>_<kanon_audit_schema>, default kanon_audit) to a name no model"
          ~ " uses.") }}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- "role SELECT on relation, ...": the foreign privileges of a state, for messages. -#}
{% macro _audit_trail_describe_grants(foreign) %}
  {%- set parts = [] -%}
  {%- for relation, grantee, privilege in foreign -%}
    {%- do parts.append(grantee ~ ' ' ~ privilege ~ ' on ' ~ relation) -%}
  {%- endfor -%}
  {{ return(parts | join('; ')) }}
{% endmacro %}

{#- Revokes the foreign privileges of a state and grants SELECT to the kanon_audit_readers roles
    (Postgres; nothing elsewhere). Runs in the caller's transaction. -#}
{% macro _make_audit_trail_private(relations, foreign) %}
  {{ return(adapter.dispatch('_make_audit_trail_private', 'kanon')(relations, foreign)) }}
{% endmacro %}

{% macro default___make_audit_trail_private(relations, foreign) %}
{% endmacro %}

{% macro postgres___make_audit_trail_private(relations, foreign) %}
  {%- set readers = kanon._audit_trail_readers() -%}
  {%- if foreign or readers -%}
    {% call statement('kanon_audit_trail_private') -%}
      {%- for relation, grantee, privilege in foreign %}
      revoke {{ privilege }} on table {{ relation }} from {{ grantee }} cascade;
      {%- endfor %}
      {%- for relation in relations %}
      {%- for reader in readers %}
      grant select on table {{ relation }} to "{{ reader | replace('"', '""') }}";
      {%- endfor %}
      {%- endfor %}
    {%- endcall %}
  {%- endif -%}
{% endmacro %}

{#- Serializes the creation of the trail between concurrent creators (threads of one invocation,
    or two invocations), until the caller's commit: on Postgres an explicit transaction holding
    an advisory lock (explicit: see _begin_release_transaction for why dbt-postgres needs it).
    DuckDB has no such lock: there kanon's on-run-start hook creates the trail before any thread
    runs, and a later creator only finds it there. -#}
{% macro _audit_trail_lock(schema) %}
  {{ return(adapter.dispatch('_audit_trail_lock', 'kanon')(schema)) }}
{% endmacro %}

{% macro default___audit_trail_lock(schema) %}
{% endmacro %}

{% macro postgres___audit_trail_lock(schema) %}
  {% call statement('kanon_audit_trail_lock') -%}
    begin;
    select pg_advisory_xact_lock(hashtext('kanon audit trail {{ schema | replace("'", "''") }}'))
  {%- endcall %}
{% endmacro %}
