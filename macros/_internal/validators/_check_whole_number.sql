{#- A whole-number argument: an int, not a bool, a float (1.5, or 2.0 from a yml) or text; at least `minimum`. -#}
{% macro _check_whole_number(value, argument, who, minimum=none) %}
  {%- if value is boolean or value is not integer -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a whole number"
        ~ (" >= " ~ minimum if minimum is not none else '') ~ ", got "
        ~ kanon._describe_value(value)) }}
  {%- endif -%}
  {%- if minimum is not none and value < minimum -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " must be a whole number >= " ~ minimum ~ ", got " ~ value) }}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}
