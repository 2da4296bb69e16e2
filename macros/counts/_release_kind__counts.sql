{#- The count kind (kanon.release_counts) as the core sees it (_release_kind says what each field
    means). -#}
{% macro _release_kind__counts() %}
  {{ return({'called': 'kanon.release_counts', 'long_form': true, 'count': true, 'budget': true, 'rate_of': 'cells',
      'order_by': none,
      'facts': ['cells_passed', 'cells_generalized', 'cells_suppressed', 'people_suppressed', 'people_in',
                'events_null_unit', 'missing_values', 'rows_compared', 'rows_changed_small', 'rows_held',
                'rows_appeared', 'rows_disappeared', 'key_fingerprint', 'contributions_dropped',
                'events_outside_cells'],
      'checks': ['input_empty', 'input_shrink', 'min_count', 'null_unit', 'suppression_budget', 'small_change',
                 'output_empty'],
      'wording': {'release': 'count release', 'changed_by': 'people',
                  'small_change_advice': "Release with on_small_change='hold' to hold such rows until the change"
                                         ~ " reaches k.",
                  'key': 'noise key',
                  'key_changed': "every count's noise differs from the previous release's, and a reader comparing the"
                                 ~ " two releases can average it away"},
      'report': {'sizes': 'trail_groups'}}) }}
{% endmacro %}
