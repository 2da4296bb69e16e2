{#- k and count_column default to the model's config. Under k_anonymous the gate checks the
    config's values and the audit records them, so a call may not contradict them. -#}
{% macro _release_config_defaults(k, count_column, audit, who) %}
  {%- if k is not none -%}{%- do kanon._check_k(k, who) -%}{%- endif -%}
  {%- set config_k = config.get('k') -%}
  {%- set config_count = config.get('count_column') or ('people' if audit else none) -%}
  {%- if audit and k is not none and config_k is not none and k != config_k -%}
    {{ exceptions.raise_compiler_error(who ~ ": k=" ~ k ~ " differs from the model's config k=" ~ config_k
        ~ ", which the k_anonymous gate checks and the audit records; set k in one place") }}
  {%- endif -%}
  {%- if audit and count_column is not none and count_column != config_count -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column='" ~ count_column
        ~ "' differs from the model's config count_column='" ~ config_count
        ~ "', which the k_anonymous gate checks; set it in one place") }}
  {%- endif -%}
  {{ return((k if k is not none else config_k, count_column or config_count or 'people')) }}
{% endmacro %}

{#- Compile-time checks of the k_anonymous materialization's config. -#}
{% macro _check_release_config(k, count_column, max_suppression) %}
  {%- set who = "kanon: " ~ model.unique_id ~ " (materialized k_anonymous)" -%}
  {%- do kanon._check_k(k, who) -%}
  {%- do kanon._check_share(config.get('max_input_shrink', 0.5), 'max_input_shrink', who) -%}
  {%- do kanon._check_boolean(config.get('allow_empty_input', false), 'allow_empty_input', who) -%}
  {%- do kanon._check_boolean(config.get('allow_empty_output', false), 'allow_empty_output', who) -%}
  {%- if count_column is not string or count_column | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column must be a column name") }}
  {%- endif -%}
  {%- if max_suppression is not none -%}
    {%- do kanon._check_share(max_suppression, 'max_suppression', who) -%}
  {%- endif -%}
{% endmacro %}
