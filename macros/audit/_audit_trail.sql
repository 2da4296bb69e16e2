{#-
  The audit trail's life cycle: where it lives, how it is created (once, race-safe), and how it
  stays private. The trail names every thin cell, so none of this may depend on what a host
  project sets for all of its models (dbt applies a root project's dbt_project.yml configs to a
  package's models after the package's own in-file config(): a host's `+materialized`,
  `+schema`, `+full_refresh`, `+grants` and hooks reach kanon's audit models whatever they say).

    where        generate_schema_name below: dbt uses a package's own generate_schema_name for
                 that package's nodes, so the trail stays in <target schema>_<kanon_audit_schema>
                 (default kanon_audit) whatever `+schema` or generate_schema_name the host has.
    created      by kanon's on-run-start hook (_audit_trail_on_run_start), once, before any model
                 runs, when the invocation selects a k_anonymous model; by _ensure_audit_trail
                 when a release still finds it missing (serialized by an advisory lock on
                 Postgres); by the audit models, materialized kanon_audit_trail, which also add
                 new columns and never rebuild, run hooks or apply grants.
    private      a new table is made private in the transaction that creates it; the audit
                 models revoke every privilege of any other role on each run, and kanon's
                 on-run-end hook (after the host's own) what the invocation granted; a release
                 refuses while another role holds one (Postgres; DuckDB has no roles). The only
                 readers kanon grants are the roles of the var kanon_audit_readers (SELECT only).
    apart        nothing else the project builds may share the trail's schema: the audit models
                 and every release refuse, naming what does.
    not cloned   dbt clone builds nodes with dbt's own view, the project's grants and no kanon
                 hook: the audit models' pre-hook refuses it (_audit_trail_hook_guard), and a
                 view found where the trail belongs is dropped and the trail created there.
-#}

{#- The body of an audit model: its typed empty shell, once it is sure it is materialized by
    kanon_audit_trail. A host's project-wide `+materialized` overrides the model's own config,
    and a table or view materialization would rebuild the trail and erase its history: the model
    fails to compile instead, before anything runs, saying how to fix it. -#}
{% macro _audit_trail_model(which) %}
  {%- if execute and config.get('materialized') != 'kanon_audit_trail' -%}
    {{ exceptions.raise_compiler_error(
        "kanon: " ~ model.unique_id ~ " is the private, append-only audit trail and must be materialized"
        ~ " 'kanon_audit_trail', but this project configures it as '" ~ config.get('materialized') ~ "'"
        ~ " (a project-wide +materialized in dbt_project.yml overrides a package's own config), which would"
        ~ " rebuild it and erase the audit history. Nothing was changed. Add to your dbt_project.yml:\n"
        ~ "  models:\n    kanon:\n      audit:\n        +materialized: kanon_audit_trail") }}
  {%- endif -%}
  {{ return(kanon._audit_shell(which)) }}
{% endmacro %}

{#- The audit models' one pre-hook (_audit__models.yml; hooks add up, so a host's config can add
    its own but never remove this one). kanon_audit_trail runs no hooks: this one only runs when
    something else builds an audit model, and that is dbt clone, whose `clone` materialization
    dbt takes from the root project or dbt itself, never from a package (dbt 1.11,
    require_explicit_package_overrides_for_builtin_materializations), and which compiles nothing,
    so _audit_trail_model's check never runs. On Postgres and DuckDB clone makes a view over the
    source schema's trail with the project's +grants and no kanon hook to revoke them (clone runs
    no on-run-* hooks). Run first, outside the transaction, it refuses before anything is
    created. Renders no SQL at parse time. -#}
{% macro _audit_trail_hook_guard() %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- if flags.WHICH == 'clone' -%}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to clone " ~ model.unique_id ~ ": it is the private audit trail, which names every thin cell, and dbt clone"
        ~ " would make " ~ this ~ " a view over " ~ (defer_relation or 'the trail of --state') ~ " with this project's grants, outside"
        ~ " kanon's control. Nothing was created. Leave kanon out of the clone: dbt clone --state <path> --exclude package:kanon;"
        ~ " the next dbt run or dbt build in the clone's schema creates its own, empty trail.") }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error(
      "kanon: refused to build " ~ model.unique_id ~ " with dbt " ~ flags.WHICH ~ ": it is the private, append-only audit trail,"
      ~ " which only the kanon_audit_trail materialization builds. Nothing was created.") }}
{% endmacro %}

{#- Which audit table an audit model is (see _audit_tables). -#}
{% macro _audit_trail_which(model_name) %}
  {%- set which = dict(kanon._audit_tables()).get(model_name) -%}
  {%- if which is none -%}
    {{ exceptions.raise_compiler_error("kanon: the kanon_audit_trail materialization is only for kanon's audit models ("
        ~ (kanon._audit_model_names() | join(', ')) ~ "), not " ~ model_name) }}
  {%- endif -%}
  {{ return(which) }}
{% endmacro %}

{#- The roles the var kanon_audit_readers names (Postgres): the only roles kanon lets read the
    trail, with SELECT and nothing else. -#}
{% macro _audit_trail_readers() %}
  {%- set readers = var('kanon_audit_readers', []) -%}
  {%- if readers is string or readers is mapping or readers is not iterable -%}
    {{ exceptions.raise_compiler_error("kanon: the var kanon_audit_readers must be a list of role names, got " ~ readers) }}
  {%- endif -%}
  {%- for reader in readers if reader is not string or (reader | trim) == '' -%}
    {{ exceptions.raise_compiler_error("kanon: the var kanon_audit_readers must be a list of role names, got " ~ readers) }}
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
      {%- set shared = (neighbours[:5] | join(', ')) ~ (' and ' ~ (neighbours | length - 5) ~ ' more' if neighbours | length > 5 else '') -%}
    {%- endif -%}
    {%- if shared -%}
      {{ exceptions.raise_compiler_error(
          "kanon: refused to " ~ doing ~ ": the audit trail " ~ relation ~ " would share schema " ~ schema_of
          ~ " with " ~ shared ~ ", next to what report readers are granted, and the trail names every thin cell."
          ~ " Nothing was published or created. Give the trail a schema of its own: set the var kanon_audit_schema"
          ~ " (the trail lives in <target schema>_<kanon_audit_schema>, default kanon_audit) to a name no model uses.") }}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- What the warehouse holds of the audit relations, in one query: {'missing': [relations],
    'views': [relations], 'not_tables': [relations] (neither table nor view), 'foreign':
    [(relation, grantee, privilege)]}. `foreign` lists
    every privilege a role other than the owner (and the role dbt runs as) holds on them, table-
    or column-level, PUBLIC included; SELECT of a kanon_audit_readers role is not foreign. -#}
{% macro _audit_trail_state(relations) %}
  {{ return(adapter.dispatch('_audit_trail_state', 'kanon')(relations)) }}
{% endmacro %}

{% macro default___audit_trail_state(relations) %}
  {%- set sql -%}
    select lower(table_schema), lower(table_name), table_type
    from information_schema.tables
    where
    {%- for relation in relations %}
      {% if not loop.first %}or {% endif %}(lower(table_schema) = lower('{{ relation.schema | replace("'", "''") }}')
        and lower(table_name) = lower('{{ relation.identifier | replace("'", "''") }}')
        {%- if relation.database %} and lower(table_catalog) = lower('{{ relation.database | replace("'", "''") }}'){% endif %})
    {%- endfor %}
  {%- endset -%}
  {%- set found = {} -%}
  {%- for row in run_query(sql).rows -%}
    {%- do found.update({(row[0], row[1]): row[2]}) -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = found.get(((relation.schema | lower), (relation.identifier | lower))) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif (kind | upper) == 'VIEW' -%}
      {%- do state.views.append(relation) -%}
    {%- elif (kind | upper) not in ['BASE TABLE', 'LOCAL TEMPORARY'] -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}

{% macro postgres___audit_trail_state(relations) %}
  {%- set readers = kanon._audit_trail_readers() -%}
  {%- set sql -%}
    with audit as (
      select c.oid, n.nspname, c.relname, c.relkind, c.relowner, c.relacl
      from pg_catalog.pg_class as c
      inner join pg_catalog.pg_namespace as n on c.relnamespace = n.oid
      where (n.nspname, c.relname) in (
        {%- for relation in relations -%}
        ('{{ relation.schema | replace("'", "''") }}', '{{ relation.identifier | replace("'", "''") }}'){% if not loop.last %}, {% endif %}
        {%- endfor -%})
    ),
    granted as (
      select a.oid, g.grantee, g.privilege_type from audit as a cross join lateral aclexplode(a.relacl) as g
      union
      select a.oid, g.grantee, g.privilege_type
      from audit as a
      inner join pg_catalog.pg_attribute as att on a.oid = att.attrelid and att.attnum > 0 and not att.attisdropped
      cross join lateral aclexplode(att.attacl) as g
    ),
    foreign_grants as (
      select
        granted.oid,
        case when granted.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(granted.grantee)) end as grantee,
        granted.privilege_type
      from granted
      inner join audit as a on granted.oid = a.oid
      where granted.grantee <> a.relowner
        and granted.grantee <> (select r.oid from pg_catalog.pg_roles as r where r.rolname = current_user)
        and not (granted.privilege_type = 'SELECT' and granted.grantee in (
          select r.oid from pg_catalog.pg_roles as r where r.rolname in (
            {%- for reader in readers -%}'{{ reader | replace("'", "''") }}'{% if not loop.last %}, {% endif %}{%- endfor -%}
            {%- if not readers -%}null{%- endif -%})))
    )
    select a.nspname, a.relname, a.relkind, f.grantee, f.privilege_type
    from audit as a
    left join foreign_grants as f on a.oid = f.oid
    order by a.nspname, a.relname, f.grantee, f.privilege_type
  {%- endset -%}
  {%- set found = {} -%}
  {%- set grants = [] -%}
  {%- for row in run_query(sql).rows -%}
    {%- do found.update({(row[0], row[1]): row[2]}) -%}
    {%- if row[3] is not none -%}{%- do grants.append((row[0], row[1], row[3], row[4])) -%}{%- endif -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = found.get((relation.schema, relation.identifier)) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif kind == 'v' -%}
      {%- do state.views.append(relation) -%}
    {%- elif kind not in ['r', 'p'] -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
    {%- for schema, name, grantee, privilege in grants if schema == relation.schema and name == relation.identifier -%}
      {%- do state.foreign.append((relation, grantee, privilege)) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(state) }}
{% endmacro %}

{#- Spark has no information_schema: the metastore's own listing of the trail's schema (`show
    tables` lists views too, `show views` says which), read afresh, not from dbt's relation
    cache, which does not see what _build_audit_trail just created. Spark SQL's
    own catalog has no roles or grants: nothing is foreign. -#}
{% macro spark___audit_trail_state(relations) %}
  {%- set listed = {} -%}
  {%- for relation in relations -%}
    {%- set schema = relation.without_identifier() -%}
    {%- if (schema | string) not in listed -%}
      {%- set kinds = {} -%}
      {%- if run_query("show schemas like '" ~ (schema.schema | replace("'", "\\'")) ~ "'").rows -%}
        {%- for row in run_query('show tables in ' ~ schema).rows if not row[2] -%}
          {%- do kinds.update({row[1] | lower: 'table'}) -%}
        {%- endfor -%}
        {%- for row in run_query('show views in ' ~ schema).rows -%}
          {%- do kinds.update({row[1] | lower: 'view'}) -%}
        {%- endfor -%}
      {%- endif -%}
      {%- do listed.update({schema | string: kinds}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set state = {'missing': [], 'views': [], 'not_tables': [], 'foreign': []} -%}
  {%- for relation in relations -%}
    {%- set kind = listed[relation.without_identifier() | string].get(relation.identifier | lower) -%}
    {%- if kind is none -%}
      {%- do state.missing.append(relation) -%}
    {%- elif kind == 'view' -%}
      {%- do state.views.append(relation) -%}
    {%- elif kind != 'table' -%}
      {%- do state.not_tables.append(relation) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(state) }}
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
        "kanon: the audit trail " ~ (state.not_tables | join(', ')) ~ " exists but is neither a table nor a view (a host setting"
        ~ " materialized it otherwise?). kanon never drops it: rename it aside, then run again to recreate the trail.") }}
  {%- endif -%}
  {%- for relation in state.views -%}
    {%- if loop.first -%}
      {{ log("kanon: WARNING: dropped the view(s) " ~ (state.views | join(', ')) ~ " where the private audit trail belongs"
          ~ " (such as dbt clone made before kanon refused to clone the trail: a view over another schema's trail,"
          ~ " with the project's grants); creating the trail in their place.", info=true) }}
    {%- endif -%}
    {#- not adapter.drop_relation: dbt-postgres drops with cascade, and what was built on the view is not kanon's to drop -#}
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
        comment on table {{ relation }} is 'kanon audit trail: append-only and private (it names thin cells); created by kanon, never rebuilt'
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
      {{ log("kanon: added column(s) " ~ (new_columns | map(attribute=0) | join(', ')) ~ " to the audit trail " ~ relation, info=true) }}
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
      {{ exceptions.raise_compiler_error("kanon: refused to " ~ doing ~ ": could not create the audit trail " ~ ((state.missing + state.views) | join(', ')) ~ ". Nothing was published.") }}
    {%- endif -%}
  {%- endif -%}
  {%- if state.not_tables -%}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to " ~ doing ~ ": the audit trail " ~ (state.not_tables | join(', ')) ~ " is not a table"
        ~ " (a host setting materialized it otherwise?). Nothing was published. kanon never drops it: rename it aside and run again.") }}
  {%- endif -%}
  {%- if state.foreign -%}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to " ~ doing ~ ": other roles hold privileges on the private audit trail ("
        ~ kanon._audit_trail_describe_grants(state.foreign) ~ "). The trail names every thin cell, and this release"
        ~ " would add its own. Nothing was published. Run the audit models (dbt run --select "
        ~ (kanon._audit_model_names() | join(' ')) ~ "), which revoke every privilege not given through the var kanon_audit_readers, and"
        ~ " remove what granted it (a grants config or hook reaching all models, an on-run-end grant on every"
        ~ " table of a schema, alter default privileges).") }}
  {%- endif -%}
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

{#- A k_anonymous model of this `dbt run` or `dbt build` that ended in an error before its gate
    recorded anything (a release macro refused its arguments when the model compiled, the
    materialization refused the model before its checks, or the warehouse failed) is an attempted
    release too: one REFUSED row each, failed_check 'compile' (refused while compiling) or 'error'
    (anything else), written here since a compile error stops the model before its
    materialization runs. The reason is kanon's own message (names and counts), else a general
    line: a warehouse's error can quote a value of the data. Skipped models were not attempted.
    Not recorded: a project that does not parse, and an invocation killed before its hooks. -#}
{% macro _audit_record_unrecorded_refusals(audit_releases, results) %}
  {%- if results is none or flags.WHICH not in ['run', 'build'] -%}{{ return('') }}{%- endif -%}
  {%- set inserts = [] -%}
  {%- for result in results if result.status == 'error' and result.node.resource_type == 'model'
        and result.node.config.materialized == 'k_anonymous' -%}
    {%- set node = result.node -%}
    {%- set lines = [] -%}
    {%- for line in (result.message or '').split('\n') if line | trim and not (line | trim).startswith('>') -%}
      {%- do lines.append(line | trim) -%}
    {%- endfor -%}
    {%- set compile = lines and lines[0].startswith('Compilation Error') -%}
    {%- set said = lines[1:] if lines and lines[0].endswith(')') and ' in model ' in lines[0] else lines -%}
    {%- set reason = said[0] if said and said[0].startswith('kanon') else 'the model failed before the gate with an error that is not'
        ~ " kanon's (dbt's log has it; a warehouse's message may quote data, so it is not copied here)" -%}
    {%- set k = node.config.get('k') -%}
    {%- do inserts.append(kanon._audit_insert_refused(audit_releases, {
        'invocation_id': invocation_id, 'report': node.name, 'report_unique_id': node.unique_id,
        'k': (k | int) if k is number and k is not boolean and k == (k | int) and 0 < k < 2147483648 else none,
        'policy_fingerprint': none, 'count_column': node.config.get('count_column') if node.config.get('count_column') is string else none,
        'release_kind': node.config.get('kanon_release_kind') or 'hand_written', 'release_plan': none},
        'compile' if compile else 'error', reason[:2000], any_row=true)) -%}
  {%- endfor -%}
  {%- for insert in inserts -%}
    {%- do kanon._audit_write_bound(insert, [none]) -%}
  {%- endfor -%}
  {%- if inserts -%}{%- do adapter.commit() -%}{%- endif -%}
{% endmacro %}
