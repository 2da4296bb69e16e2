{#-
  materialized='kanon_audit_trail': kanon's private, append-only audit tables (models/audit/),
  and nothing else. Whatever the host project configures for all of its models, it

    - refuses when the trail's schema is also the schema of anything else the project builds,
    - creates the schema and the typed empty shell when they are missing (race-safe, see
      _build_audit_trail), otherwise only adds the columns the shell defines and the table lacks:
      it never drops, never rebuilds, and ignores --full-refresh and the full_refresh config,
    - never runs pre- or post-hooks and never applies grants (it says so, once per model, when
      the project configured any, or a schema it did not apply); the audit models' own pre-hook
      is for dbt clone, which builds them otherwise (_audit_trail_hook_guard),
    - on Postgres revokes, on every run, every privilege any role other than the owner holds on
      the table (table- and column-level, PUBLIC included, `alter default privileges` grants
      included), and grants SELECT to the roles of the var kanon_audit_readers, nothing more.

  Rows arrive only from the k_anonymous materialization; `kanon_reset_audit` deletes them.
-#}
{% materialization kanon_audit_trail, default %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set which = kanon._audit_trail_which(model.name) -%}
  {%- do kanon._audit_trail_check_apart([target_relation], none, 'build ' ~ model.unique_id) -%}

  {#- What the project configured and kanon did not apply, said once per model. -#}
  {%- set ignored = [] -%}
  {%- if config.get('grants') -%}
    {%- do ignored.append('grants ' ~ tojson(config.get('grants'), sort_keys=true)) -%}
  {%- endif -%}
  {#- the project's own: not kanon's guard against dbt clone (_audit_trail_hook_guard) -#}
  {%- set host_pre_hooks = pre_hooks | rejectattr('sql', 'equalto', '{{ kanon._audit_trail_hook_guard() }}') | list -%}
  {%- if host_pre_hooks | length > 0 -%}
    {%- do ignored.append((host_pre_hooks | length) ~ ' pre-hook(s)') -%}
  {%- endif -%}
  {%- if post_hooks | length > 0 -%}
    {%- do ignored.append((post_hooks | length) ~ ' post-hook(s)') -%}
  {%- endif -%}
  {%- if config.get('schema') is not none and config.get('schema') != var('kanon_audit_schema', 'kanon_audit') -%}
    {%- do ignored.append("schema '" ~ config.get('schema')
                          ~ "' (to move the trail deliberately, set the var kanon_audit_schema)") -%}
  {%- endif -%}
  {%- if ignored -%}
    {{ log("kanon: WARNING: " ~ model.unique_id ~ ": " ~ (ignored | join(', ')) ~ " configured for it were not applied:"
        ~ " the audit trail " ~ target_relation ~ " is private and names every thin cell."
        ~ " To let the privacy officer read it, set the var kanon_audit_readers (Postgres).", info=true) }}
  {%- endif -%}
  {%- if should_full_refresh() -%}
    {{ log("kanon: " ~ model.unique_id ~ ": full refresh ignored: the audit trail is append-only"
        ~ " (dbt run-operation kanon_reset_audit deletes history deliberately).", info=true) }}
  {%- endif -%}

  {%- do kanon._build_audit_trail([(target_relation, which)]) -%}

  {#- Private on every run, whatever granted what since the last. -#}
  {%- set state = kanon._audit_trail_state([target_relation]) -%}
  {%- if state.foreign -%}
    {{ log("kanon: WARNING: " ~ model.unique_id ~ ": revoked from the private audit trail: "
        ~ kanon._audit_trail_describe_grants(state.foreign), info=true) }}
  {%- endif -%}
  {%- do kanon._make_audit_trail_private([target_relation], state.foreign) -%}
  {%- if state.foreign and kanon._audit_trail_state([target_relation]).foreign -%}
    {{ exceptions.raise_compiler_error(
        "kanon: could not make the audit trail " ~ target_relation ~ " private: "
        ~ kanon._audit_trail_describe_grants(kanon._audit_trail_state([target_relation]).foreign)
        ~ " remain (granted by a role other than its owner?). Revoke them as the owner or a superuser.") }}
  {%- endif -%}

  {% call statement('main') -%}
    select count(*) from {{ target_relation }} where 1 = 0
  {%- endcall %}
  {{ adapter.commit() }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
