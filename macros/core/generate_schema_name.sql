{#- kanon's own generate_schema_name, which dbt applies to kanon's nodes only (a host project's
    override applies to the host's nodes). The audit models always get the trail's schema;
    kanon's other nodes (the example) get dbt's default. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
  {%- if node is not none and node.package_name == 'kanon' and node.name in kanon._audit_model_names() -%}
    {%- set suffix = var('kanon_audit_schema', 'kanon_audit') -%}
    {%- if suffix is not string or (suffix | trim) == '' -%}
      {{ exceptions.raise_compiler_error("kanon: the var kanon_audit_schema must be a non-empty schema name"
          ~ " (the audit trail lives in <target schema>_<kanon_audit_schema>), got " ~ suffix) }}
    {%- endif -%}
    {{ target.schema }}_{{ suffix | trim }}
  {%- elif custom_schema_name is none -%}
    {{ target.schema }}
  {%- else -%}
    {{ target.schema }}_{{ custom_schema_name | trim }}
  {%- endif -%}
{%- endmacro %}
