{#- input_shrink (every kind): the release read at least 1 - max_input_shrink of the report's
    previous release's rows (config max_input_shrink, default 0.5; checked at compile time): one
    that shrank more would replace a good release with a partial one. -#}
{% macro _gate_check__input_shrink(gate) %}
  {%- set facts = gate.facts -%}
  {%- set share = config.get('max_input_shrink', 0.5) -%}
  {%- set before = facts.previous_input_rows -%}
  {%- if before is none or before == 0 or facts.input_rows >= before -%}
    {{ return('') }}
  {%- endif -%}
  {%- set shrink = 1 - facts.input_rows / before -%}
  {{ return((kanon._gate_input_read(facts) ~ ", " ~ ((100 * shrink) | round(1))
      ~ " % fewer than the previous release's " ~ before ~ ", more than max_input_shrink=" ~ share
      ~ " (an upstream load that failed?); raise max_input_shrink (1 allows any) to publish it")
      if shrink > share + 1e-12 else '') }}
{% endmacro %}
