{#- An enum argument must be exactly one of its documented values (compared as given: 'Root' is not 'root'). -#}
{% macro _check_enum(value, argument, allowed, who) %}
  {%- if value is not string or value not in allowed -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be one of '" ~ (allowed | join("', '"))
        ~ "', got " ~ (("'" ~ value ~ "'") if value is string else (value | string))) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
