{#- A relation argument must be a relation (ref, source, or api.Relation), not its name as text:
    a string would be spliced into SQL unquoted, and fail later on a raw database error, or read a
    table the user did not mean. At parse time ref() returns a relation too. -#}
{% macro _check_relation(value, argument, who) %}
  {#- dbt's relations are mappings whose metadata names their Relation class (as dbt-utils tests) -#}
  {%- if not (value is mapping and (value.get('metadata', {}).get('type', '') | string).endswith('Relation')) -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument
        ~ " must be a relation such as ref('my_events') or source('app', 'events'), got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
