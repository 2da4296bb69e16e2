{#- output_empty (every kind): the release shows something, unless config allow_empty_output. A
    release whose k is above every cell suppresses everything and would replace a good release
    with an empty one, as an empty input would (input_empty). A release that read no input rows
    is left to input_empty, which refused it or was consented to (allow_empty_input=true): an
    empty input cannot give anything but an empty output, and one consent is enough. -#}
{% macro _gate_check__output_empty(gate) %}
  {%- set facts = gate.facts -%}
  {{ return(("it read " ~ facts.input_rows ~ " input row(s) and would publish nothing ("
      ~ facts.cells_suppressed ~ " of " ~ facts.cells_in ~ " cell(s) suppressed or hidden at k=" ~ gate.k
      ~ "): an empty release would replace the previous one; check k, or set config"
      ~ " allow_empty_output=true to publish it")
      if kanon._release_shows_nothing(gate.kind, facts) and facts.input_rows != 0
      and not config.get('allow_empty_output', false) else '') }}
{% endmacro %}

{#- Whether a release shows its readers nothing: no published row, or for a kind whose published
    rows include hidden ones (a table with totals), none shown (the descriptor's `shown` fact). -#}
{% macro _release_shows_nothing(kind, facts) %}
  {{ return(facts[kind.get('shown', 'rows_published')] == 0) }}
{% endmacro %}
