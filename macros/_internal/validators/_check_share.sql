{#- A share argument: a number from 0 to 1 (0.05 is 5 %), not a bool or text. -#}
{% macro _check_share(value, argument, who) %}
  {%- if value is boolean or value is not number or value < 0 or value > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a share from 0 to 1 (0.05 for 5 %), got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
