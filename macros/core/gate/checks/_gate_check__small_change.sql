{#- small_change (counts, records, tables): no published row changed by 1 to k-1 people since
    the previous release, when on_small_change='refuse'. -#}
{% macro _gate_check__small_change(gate) %}
  {%- set facts = gate.facts -%}
  {{ return((facts.rows_changed_small ~ " of " ~ facts.rows_compared ~ " row(s) published before changed by 1 to "
      ~ (gate.k - 1) ~ " people since the previous release, and on_small_change='refuse'")
      if facts.on_small_change == 'refuse' and facts.rows_changed_small else '') }}
{% endmacro %}
