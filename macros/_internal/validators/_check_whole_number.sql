{#- A whole-number argument: an int, not a bool, a float (1.5, or 2.0 from a yml) or text; at least
    `minimum` and at most `maximum`, where given. -#}
{% macro _check_whole_number(value, argument, who, minimum=none, maximum=none) %}
  {%- set bounds = ((" >= " ~ minimum) if minimum is not none else '')
      ~ ((" and" if minimum is not none else '') ~ " <= " ~ maximum if maximum is not none else '') -%}
  {%- if value is boolean or value is not integer -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a whole number" ~ bounds ~ ", got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {%- if (minimum is not none and value < minimum) or (maximum is not none and value > maximum) -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a whole number" ~ bounds ~ ", got " ~ value) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
