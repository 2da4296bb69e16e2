{#- null_unit (counts, tables): no event without a person, when null_unit='error'. -#}
{% macro _gate_check__null_unit(gate) %}
  {{ return((gate.facts.events_null_unit ~ " event(s) have a NULL privacy unit and null_unit='error'")
      if gate.facts.null_unit == 'error' and gate.facts.events_null_unit > 0 else '') }}
{% endmacro %}
