{#- The record kind (kanon.release_records) as the core sees it (_release_kind says what each
    field means). Its records carry no count: the gate recounts the people of every class. -#}
{% macro _release_kind__records() %}
  {{ return({'called': 'kanon.release_records', 'long_form': true, 'count': false, 'budget': true,
      'rate_of': 'budget_unit', 'order_by': '_kanon_shuffle', 'learns': true,
      'facts': ['cells_passed', 'cells_suppressed', 'records_in', 'records_suppressed', 'people_in',
                'people_suppressed', 'rows_compared', 'rows_changed_small', 'rows_appeared', 'rows_disappeared',
                'key_fingerprint'],
      'checks': ['input_empty', 'input_shrink', 'records_search', 'records_recount', 'records_budget', 'small_change',
                 'output_empty'],
      'wording': {'release': 'record release', 'rows': 'class(es) of records', 'key': 'pseudonym key',
                  'key_changed': "every pseudonym differs from the previous release's, so its records cannot be"
                                 ~ " linked with this one's"},
      'report': {'sizes': 'classes'}}) }}
{% endmacro %}
