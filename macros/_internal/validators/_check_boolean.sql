{#- A boolean argument must be a real boolean. The text 'false' (as a var or a yml value can
    arrive) is truthy in Jinja: accepting it would silently flip the privacy model. -#}
{% macro _check_boolean(value, argument, who) %}
  {%- if value is not boolean -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be true or false, got "
        ~ kanon._describe_value(value)
        ~ (". A var arrives as text: write " ~ argument ~ "=(var('...') | as_bool)" if value is string else '')) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
