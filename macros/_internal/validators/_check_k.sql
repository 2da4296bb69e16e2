{#- k must be a whole number of at least 2 (k=1 protects nobody); `who` names the caller in errors.
    Bounded by the audit trail's integer column, so a k the trail cannot record is refused here
    rather than by a raw database error mid-release. -#}
{% macro _check_k(k, who) %}
  {%- if k is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": k is required (config k=... on the model, or k=... in the call)") }}
  {%- endif -%}
  {%- do kanon._check_whole_number(k, 'k', who) -%}
  {%- if k < 2 -%}
    {{ exceptions.raise_compiler_error(who ~ ": k must be at least 2 (k=1 protects nobody), got " ~ k) }}
  {%- endif -%}
  {%- if k > 2147483647 -%}
    {{ exceptions.raise_compiler_error(who ~ ": k must be at most 2147483647 (the audit trail records it as an"
        ~ " integer), got " ~ k) }}
  {%- endif -%}
{% endmacro %}
