{#-
  The audit trail's life cycle, one concern a file of macros/audit/. The trail names every thin
  cell, so none of it may depend on what a host project sets for all of its models (dbt applies
  a root project's dbt_project.yml configs to a package's models after the package's own
  config(): a host's `+materialized`, `+schema`, `+full_refresh`, `+grants` and hooks reach
  kanon's audit models whatever they say).

    _audit_trail.sql           created, once and race-safe: by kanon's on-run-start hook, by a
                               release still finding it missing (_ensure_audit_trail), by the
                               audit models (new columns; never a rebuild)
    _audit_trail_state.sql     what the warehouse holds of it, in one query, per warehouse
    _audit_trail_privacy.sql   private: no other role's privilege but kanon_audit_readers'
                               SELECT; the creators' lock; apart: no other node in its schema
    _audit_trail_guard.sql     the audit models: built by kanon_audit_trail only, never cloned
    _audit_trail_hooks.sql     on-run-start creates it, on-run-end revokes what the run granted
    _audit_trail_refusals.sql  the releases dbt's own errors kept from their gate, recorded

  Where it lives: <target schema>_<kanon_audit_schema> (default kanon_audit), named by kanon's
  own generate_schema_name (macros/core/), which dbt applies to kanon's nodes whatever `+schema`
  or generate_schema_name the host has.
-#}

{#- Called by the k_anonymous materialization before a release writes anything. Refuses when the
    trail would share its schema with the mart (`this`) or anything else the project builds;
    creates it when still missing (tolerating a concurrent creator, and checking again after);
    on Postgres refuses while another role holds a privilege on it. One query when the trail is
    there, as it is after kanon's on-run-start hook. -#}
{% macro _ensure_audit_trail(tables) %}
  {%- set doing = 'release ' ~ model.unique_id -%}
  {%- set relations = tables | map(attribute=0) | list -%}
  {%- do kanon._audit_trail_check_apart(relations, this, doing) -%}
  {%- set state = kanon._audit_trail_state(relations) -%}
  {%- if state.missing or state.views -%}
    {%- do kanon._build_audit_trail(tables) -%}
    {%- set state = kanon._audit_trail_state(relations) -%}
    {%- if state.missing or state.views -%}
      {{ exceptions.raise_compiler_error("kanon: refused to " ~ doing ~ ": could not create the audit trail "
          ~ ((state.missing + state.views) | join(', ')) ~ ". Nothing was published.") }}
    {%- endif -%}
  {%- endif -%}
  {%- if state.not_tables -%}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to " ~ doing ~ ": the audit trail " ~ (state.not_tables | join(', ')) ~ " is not a table"
        ~ " (a host setting materialized it otherwise?). Nothing was published. kanon never drops it: rename it aside"
        ~ " and run again.") }}
  {%- endif -%}
  {%- if state.foreign -%}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to " ~ doing ~ ": other roles hold privileges on the private audit trail ("
        ~ kanon._audit_trail_describe_grants(state.foreign) ~ "). The trail names every thin cell, and this release"
        ~ " would add its own. Nothing was published. Run the audit models (dbt run --select "
        ~ (kanon._audit_model_names() | join(' ')) ~ "), which revoke every privilege not given through the var"
        ~ " kanon_audit_readers, and"
        ~ " remove what granted it (a grants config or hook reaching all models, an on-run-end grant on every"
        ~ " table of a schema, alter default privileges).") }}
  {%- endif -%}
{% endmacro %}

{#- Creates what is missing of the trail and adds the columns its shells define and it lacks;
    never drops or rebuilds a table. `tables` is a list of (relation, which: see _audit_tables), in
    one schema. A table it creates is made private in the same transaction (so that `alter
    default privileges` grants never outlive it) and marked as kanon's by its comment. A view
    where a trail table belongs holds no history: it is what `dbt clone` made before kanon refused
    it (a view over another schema's trail, granted to the project's readers), so it is dropped
    and the table created in its place. Anything else there (a materialized view, a foreign
    table) is refused, its other roles' privileges revoked first. Commits. Returns the relations
    it created. -#}
{% macro _build_audit_trail(tables) %}
  {%- set relations = tables | map(attribute=0) | list -%}
  {%- do kanon._audit_trail_lock(relations[0].schema) -%}
  {%- set state = kanon._audit_trail_state(relations) -%}
  {%- if state.not_tables -%}
    {%- if state.foreign -%}
      {%- do kanon._make_audit_trail_private([], state.foreign) -%}
      {%- do adapter.commit() -%}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(
        "kanon: the audit trail " ~ (state.not_tables | join(', ')) ~ " exists but is neither a table nor a view"
        ~ " (a host setting materialized it otherwise?). kanon never drops it: rename it aside, then run again to"
        ~ " recreate the trail.") }}
  {%- endif -%}
  {%- for relation in state.views -%}
    {%- if loop.first -%}
      {{ log("kanon: WARNING: dropped the view(s) " ~ (state.views | join(', '))
          ~ " where the private audit trail belongs"
          ~ " (such as dbt clone made before kanon refused to clone the trail: a view over another schema's trail,"
          ~ " with the project's grants); creating the trail in their place.", info=true) }}
    {%- endif -%}
    {#- not adapter.drop_relation: dbt-postgres drops with cascade, and what was built on the view is not
        kanon's to drop -#}
    {% call statement('kanon_audit_trail_drop_view') -%}
      drop view {{ relation }}
    {%- endcall %}
    {%- do state.missing.append(relation) -%}
  {%- endfor -%}
  {%- if state.missing -%}
    {#- dbt's create_schema macro, not adapter.create_schema: that one commits, ending the lock. -#}
    {%- do create_schema(relations[0].without_identifier()) -%}
    {%- for relation, which in tables if relation in state.missing -%}
      {#- one statement each: Spark runs one statement per call -#}
      {% call statement('kanon_audit_trail_create') -%}
        {{ kanon._audit_trail_create(relation, kanon._audit_shell(which)) }}
      {%- endcall %}
      {% call statement('kanon_audit_trail_comment') -%}
        comment on table {{ relation }} is {{ "'kanon audit trail: append-only and private (it names thin cells);"
            ~ " created by kanon, never rebuilt'" }}
      {%- endcall %}
    {%- endfor -%}
  {%- endif -%}
  {%- for relation, which in tables if relation not in state.missing -%}
    {%- set existing = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
    {%- set new_columns = [] -%}
    {%- for name, type in kanon._audit_column_types(which) if (name | lower) not in existing -%}
      {%- do new_columns.append((name, type)) -%}
    {%- endfor -%}
    {%- if new_columns -%}
      {%- for name, type in new_columns -%}
        {% call statement('kanon_audit_trail_columns') -%}
          {{ kanon._audit_trail_add_column(relation, name, type) }}
        {%- endcall %}
      {%- endfor -%}
      {{ log("kanon: added column(s) " ~ (new_columns | map(attribute=0) | join(', ')) ~ " to the audit trail "
          ~ relation, info=true) }}
    {%- endif -%}
  {%- endfor -%}
  {%- if state.missing -%}
    {#- The new tables' own privileges: those `alter default privileges` gave them. -#}
    {%- set created = kanon._audit_trail_state(state.missing) -%}
    {%- if created.foreign -%}
      {{ log("kanon: WARNING: revoked from the new audit trail what default privileges granted: "
          ~ kanon._audit_trail_describe_grants(created.foreign), info=true) }}
    {%- endif -%}
    {%- do kanon._make_audit_trail_private(state.missing, created.foreign) -%}
    {{ log("kanon: created the audit trail " ~ (state.missing | join(', ')), info=true) }}
  {%- endif -%}
  {%- do adapter.commit() -%}
  {{ return(state.missing) }}
{% endmacro %}

{#- The audit tables of this project, with their shells: [(relation, which)]; none when an
    audit model is missing or disabled. -#}
{% macro _audit_trail_tables() %}
  {%- set tables = [] -%}
  {%- for name, which in kanon._audit_tables() -%}
    {%- if graph.nodes.get('model.kanon.' ~ name) is none -%}{{ return(none) }}{%- endif -%}
    {%- do tables.append((kanon._audit_relation(name), which)) -%}
  {%- endfor -%}
  {{ return(tables) }}
{% endmacro %}
