{#- k must be a whole number of at least 2 (k=1 protects nobody); `who` names the caller in errors. -#}
{% macro _check_k(k, who) %}
  {%- if k is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": k is required (config k=... on the model, or k=... in the call)") }}
  {%- endif -%}
  {%- if k is boolean or k is not number or (k | int) != k -%}
    {{ exceptions.raise_compiler_error(who ~ ": k must be a whole number, got " ~ (k | string)) }}
  {%- endif -%}
  {%- if k < 2 -%}
    {{ exceptions.raise_compiler_error(who ~ ": k must be at least 2 (k=1 protects nobody), got " ~ k) }}
  {%- endif -%}
{% endmacro %}
