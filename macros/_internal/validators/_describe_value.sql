{#- A bad argument value as an error shows it: text quoted and called text (a var arrives as text,
    so 'false' must not look like false), anything else as Jinja prints it. -#}
{% macro _describe_value(value) %}
  {{ return(("the text '" ~ value ~ "'") if value is string else (value | string)) }}
{% endmacro %}
