{#- The audit trail's releases table, wherever the project put it; raises, naming where it looked,
    when no release has created it yet. -#}
{% macro _cli_audit_releases(who) %}
  {%- set audit = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set releases = adapter.get_relation(database=audit.database, schema=audit.schema, identifier=audit.identifier) -%}
  {%- if releases is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": no audit trail at " ~ audit
        ~ ": nothing was released with this target yet (the first k_anonymous release creates it)") }}
  {%- endif -%}
  {{ return(releases) }}
{% endmacro %}
