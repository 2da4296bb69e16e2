{#- A hand-written aggregate under k_anonymous (no release macro): its rows are the published
    rows, each with a count of people the gate holds to k (_release_kind says what each field
    means). -#}
{% macro _release_kind__hand_written() %}
  {{ return({'called': "the model's own SQL", 'long_form': false, 'facts': [], 'count': true, 'budget': false,
      'rate_of': 'cells', 'order_by': none,
      'checks': ['input_empty', 'input_shrink', 'min_count', 'output_empty'],
      'report': {'heading': 'Hand-written releases'}}) }}
{% endmacro %}
