{#- A number argument (an int or a float, not a bool or text, nor nan or infinite, for which
    value - value is not 0): at least `minimum`, or above it when `exclusive`. -#}
{% macro _check_number(value, argument, who, minimum=none, exclusive=false) %}
  {%- set wanted = ' above ' if exclusive else ' >= ' -%}
  {%- set bound = (wanted ~ minimum) if minimum is not none else '' -%}
  {%- if value is boolean or value is not number or value - value != 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a number" ~ bound ~ ", got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {%- if minimum is not none and (value < minimum or (exclusive and value == minimum)) -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a number" ~ bound ~ ", got " ~ value) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
