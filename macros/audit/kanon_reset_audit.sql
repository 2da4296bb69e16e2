{#-
  dbt run-operation kanon_reset_audit --args '{confirm: "erase kanon audit history"}'
  dbt run-operation kanon_reset_audit --args '{confirm: "erase kanon audit history", older_than_days: 400}'

  The only way kanon ever deletes audit history: deliberately, with the confirmation phrase
  typed out. With older_than_days it applies a retention period and keeps newer releases.
  `dbt build --full-refresh` never touches the trail (its models are full_refresh: false).
-#}
{% macro kanon_reset_audit(confirm=none, older_than_days=none) %}
  {%- set phrase = 'erase kanon audit history' -%}
  {%- if confirm != phrase -%}
    {{ exceptions.raise_compiler_error(
        "kanon_reset_audit deletes audit history and needs explicit confirmation: "
        ~ "--args '{confirm: \"" ~ phrase ~ "\"}' (optionally with older_than_days: N)") }}
  {%- endif -%}
  {#- A whole number of days: 1.5, true (a number to Jinja) or '3' must not pick a cut-off. -#}
  {%- if older_than_days is not none -%}
    {%- do kanon._check_whole_number(older_than_days, 'older_than_days', kanon._who('kanon_reset_audit'), minimum=0) -%}
  {%- endif -%}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set where = {} -%}
  {%- if older_than_days is not none -%}
    {%- set old_release = 'released_at < ' ~ dbt.dateadd('day', -1 * older_than_days, dbt.current_timestamp()) -%}
    {#- Groups first: a group row knows its release's age only through the release's own row.
        Releases next; then the hierarchy snapshots no remaining release names in its plan. -#}
    {%- do where.update({
        'kanon_audit_groups': 'where exists (select 1 from ' ~ releases
            ~ ' as old where old.invocation_id = trail.invocation_id'
            ~ ' and old.report_unique_id = trail.report_unique_id and old.' ~ old_release ~ ')',
        'kanon_audit_releases': 'where ' ~ old_release,
        'kanon_audit_hierarchies': 'where not exists (select 1 from ' ~ releases
            ~ " as kept where kept.release_plan like '%' || trail.content_hash || '%')",
    }) -%}
  {%- endif -%}
  {%- for name in ['kanon_audit_groups', 'kanon_audit_releases', 'kanon_audit_hierarchies'] -%}
    {%- set relation = kanon._audit_relation(name) -%}
    {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is not none -%}
      {% call statement('kanon_reset_audit') -%}
        delete from {{ relation }} as trail {{ where.get(name, '') }}
      {%- endcall %}
      {{ log("kanon_reset_audit: deleted audit rows from " ~ relation
             ~ (" older than " ~ older_than_days ~ " days" if older_than_days is not none else ""), info=true) }}
    {%- endif -%}
  {%- endfor -%}
  {% do adapter.commit() %}
{% endmacro %}
