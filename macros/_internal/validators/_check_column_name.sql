{#- A column argument must be one non-empty name (it is quoted, never spliced as SQL). -#}
{% macro _check_column_name(value, argument, who) %}
  {%- if value is not string or value | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a column name, got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
