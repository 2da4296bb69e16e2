{#- records_search (records): the search found a node satisfying the model; else its refusal
    (which check failed, and by how much), as the long form recorded it. -#}
{% macro _gate_check__records_search(gate) %}
  {%- set read = kanon._gate_plan(gate, 'records') -%}
  {{ return(read.refusal or (read.plan.refused.reason if read.plan.refused else '')) }}
{% endmacro %}
