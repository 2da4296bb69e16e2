{#- The releases behind models/audit_fates (tests/audit/test_audit_cell_fates.py): release_counts and
    release_decisions over the same arguments, so that the test can compare the replay of cell
    fates from the audit trail with the release's own decision for every cell. -#}
{% macro audit_fates_arguments(null_policy) %}
  {{ return({
      'relation': ref('audit_fates_events'),
      'privacy_unit': 'person',
      'dimensions': ['branch', 'title'],
      'hierarchies': {'branch': ref('audit_fates_hierarchy_branch'), 'title': ref('audit_fates_hierarchy_title')},
      'ladder': [{'title': 1}, {'branch': 1}],
      'null_policy': null_policy,
      'null_unit': 'ignore',
      'delay': {'column': 'happened_at', 'days': 2, 'as_of': '2026-01-10'},
  }) }}
{% endmacro %}
