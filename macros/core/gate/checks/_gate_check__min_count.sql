{#- min_count (counts, hand-written): every published row has a finite count of at least k. -#}
{% macro _gate_check__min_count(gate) %}
  {{ return((gate.facts.below_k ~ " row(s) have " ~ gate.count_column ~ " below k=" ~ gate.k
      ~ " or NULL, NaN or infinite") if gate.facts.below_k > 0 else '') }}
{% endmacro %}
