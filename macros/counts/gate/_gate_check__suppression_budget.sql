{#- suppression_budget (counts): at most config max_suppression of the people were suppressed,
    when it is set. -#}
{% macro _gate_check__suppression_budget(gate) %}
  {%- set facts = gate.facts -%}
  {%- if gate.max_suppression is none -%}
    {{ return('') }}
  {%- endif -%}
  {%- set over = facts.people_in > 0 and facts.people_suppressed / facts.people_in > gate.max_suppression -%}
  {{ return((facts.people_suppressed ~ " of " ~ facts.people_in ~ " people ("
      ~ ((100.0 * facts.people_suppressed / facts.people_in) | round(1))
      ~ " %) were suppressed, more than max_suppression=" ~ gate.max_suppression) if over else '') }}
{% endmacro %}
