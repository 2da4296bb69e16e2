{#- The release behind the hardening models of tests/counts/test_release_hardening.py: the hand-computed
    events by branch and title (title -> F -> *), k from each model's config; each model adds the
    one argument it is about. -#}
{% macro hardening_release(extra) %}
  {{ return(kanon.release_counts(
      relation=ref('hardening_events'),
      privacy_unit='person',
      dimensions=['branch', 'title'],
      hierarchies={'title': ref('hardening_hierarchy_title')},
      **extra
  )) }}
{% endmacro %}
