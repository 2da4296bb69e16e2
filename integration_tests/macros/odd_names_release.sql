{#- The release behind release_odd_names (k_anonymous), release_as_table (a plain table) and
    release_crash: one call, so that the first two are the same release materialized two ways.
    k comes from each model's config. -#}
{% macro odd_names_release() %}
  {{ return(kanon.release_counts(
      relation=ref('release_events'),
      privacy_unit='Patron Id',
      dimensions=['branch', 'Age Band', 'title'],
      hierarchies={
          'branch': ref('release_hierarchy_branch'),
          'Age Band': ref('release_hierarchy_age'),
          'title': ref('release_hierarchy_title'),
      },
      measures={'loans': 'count(*)'},
      remainder=true,
  )) }}
{% endmacro %}
