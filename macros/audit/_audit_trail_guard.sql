{#-
  The audit models' guard (_audit_trail.sql has the trail's life cycle): an audit model is built
  by the kanon_audit_trail materialization only (a table or view materialization would erase the
  history), never by a host's project-wide `+materialized`, and never by dbt clone, which builds
  nodes with dbt's own view, the project's grants and no kanon hook (a view such a clone made
  where the trail belongs is dropped and the trail created there: _build_audit_trail).
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
        "kanon: refused to clone " ~ model.unique_id ~ ": it is the private audit trail, which names every thin cell,"
        ~ " and dbt clone would make " ~ this ~ " a view over " ~ (defer_relation or 'the trail of --state')
        ~ " with this project's grants, outside kanon's control. Nothing was created. Leave kanon out of the clone:"
        ~ " dbt clone --state <path> --exclude package:kanon;"
        ~ " the next dbt run or dbt build in the clone's schema creates its own, empty trail.") }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error(
      "kanon: refused to build " ~ model.unique_id ~ " with dbt " ~ flags.WHICH
      ~ ": it is the private, append-only audit trail,"
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
