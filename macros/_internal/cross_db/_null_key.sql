{#- The key standing for NULL in joins: a string no real label holds (it starts with a control character). -#}
{% macro _null_key() %}
  {{- return(adapter.dispatch('_null_key', 'kanon')()) -}}
{% endmacro %}

{% macro default___null_key() -%}
  {{ return("chr(31) || 'kanon:null'") }}
{%- endmacro %}
