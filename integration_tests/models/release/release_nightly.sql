{#-
  A nightly report over growing events (tests/test_release_over_time.py): the test writes the
  events table nightly_events (person, branch, title, happened_at) into the target schema, adds
  events between runs, and sets the vars. Off unless var kanon_nightly (the table does not exist
  otherwise). Events count only two days after they happened, as of var nightly_as_of.
-#}
{{ config(materialized='k_anonymous', k=3, count_column='people', enabled=var('kanon_nightly', false)) }}

{{ kanon.release_counts(
    relation=api.Relation.create(database=target.database, schema=target.schema, identifier='nightly_events'),
    privacy_unit='person',
    dimensions=['branch', 'title'],
    measures={'events': 'count(*)'},
    remainder=true,
    delay={'column': 'happened_at', 'days': 2, 'as_of': var('nightly_as_of', none)},
    on_small_change=var('nightly_on_small_change', 'report'),
) }}
