{#- records_budget (records): the records (or people, with suppression_unit='people')
    suppressed are within the budget of the model's config max_suppression (default 0). -#}
{% macro _gate_check__records_budget(gate) %}
  {%- set read = kanon._gate_plan(gate, 'records') -%}
  {%- if read.refusal -%}{{ return(read.refusal) }}{%- endif -%}
  {%- set facts, unit = gate.facts, read.plan.budget.unit -%}
  {%- set total = facts.people_in if unit == 'people' else facts.records_in -%}
  {%- set suppressed = facts.people_suppressed if unit == 'people' else facts.records_suppressed -%}
  {%- set share = gate.max_suppression or 0 -%}
  {%- set limit = (share * total + 1e-9) | round(0, 'floor') | int -%}
  {{ return((suppressed ~ " of " ~ total ~ " " ~ unit ~ " were suppressed, more than the budget of " ~ limit
      ~ " (max_suppression=" ~ share ~ ")") if suppressed > limit else '') }}
{% endmacro %}
