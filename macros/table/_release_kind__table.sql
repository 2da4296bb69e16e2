{#- The table kind (kanon.release_table) as the core sees it (_release_kind says what each field
    means). Its cells carry counts, but hidden ones show none: the gate recounts the table. -#}
{% macro _release_kind__table() %}
  {{ return({'called': 'kanon.release_table', 'long_form': true, 'count': false, 'budget': false, 'rate_of': 'cells',
      'order_by': none,
      'facts': ['cells_passed', 'cells_suppressed', 'events_null_unit', 'rows_compared', 'rows_changed_small',
                'rows_appeared', 'rows_disappeared', 'key_fingerprint'],
      'shown': 'cells_passed',
      'checks': ['input_empty', 'input_shrink', 'table_search', 'table_noise', 'null_unit', 'table_recount',
                 'table_line_rule', 'no_exact_disclosure', 'small_change', 'output_empty'],
      'report': {'sizes': 'published_cells', 'grid': true}}) }}
{% endmacro %}
