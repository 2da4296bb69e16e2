{#-
  tests/audit/test_audit.py: records the same REFUSED release twice under one invocation id, as a
  re-run of an invocation would; kanon's guard must keep exactly one row.
-#}
{% macro replay_audit_insert(invocation) %}
  {%- set release = {
      'invocation_id': invocation,
      'report': 'replayed_report',
      'report_unique_id': 'model.kanon_integration_tests.replayed_report',
      'k': 5,
      'count_column': 'people',
      'policy_fingerprint': 'replay',
      'release_kind': 'hand_written',
  } -%}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- for attempt in range(2) -%}
    {%- do kanon._audit_write_bound(kanon._audit_insert_refused(releases, release, 'min_count', 'replayed'), [none]) -%}
  {%- endfor -%}
  {%- do adapter.commit() -%}
{% endmacro %}
