{#- input_empty (every kind): the release read some rows, unless config allow_empty_input. An
    input without rows would replace a good release with an empty one (an upstream load that
    failed). -#}
{% macro _gate_check__input_empty(gate) %}
  {{ return((kanon._gate_input_read(gate.facts) ~ " (an upstream load that failed?); set config"
      ~ " allow_empty_input=true to publish an empty release")
      if gate.facts.input_rows == 0 and not config.get('allow_empty_input', false) else '') }}
{% endmacro %}

{#- What a release read, as the input checks say it. -#}
{% macro _gate_input_read(facts) %}
  {{ return("the release read " ~ facts.input_rows ~ " input row(s)") }}
{% endmacro %}
