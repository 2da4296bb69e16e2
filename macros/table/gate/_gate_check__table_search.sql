{#- table_search (tables): the search protected every hidden cell; else its refusal, as the long
    form recorded it. -#}
{% macro _gate_check__table_search(gate) %}
  {%- set read = kanon._gate_plan(gate, 'table') -%}
  {{ return(read.refusal or (read.plan.refused.reason if read.plan.refused else '')) }}
{% endmacro %}
