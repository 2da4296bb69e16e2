{#-
  A nightly report over growing events (tests/counts/test_release_over_time.py): the test writes the
  events table nightly_events (person, branch, title, happened_at) into the target schema, adds
  events between runs, and sets the vars. Off unless var kanon_nightly (the table does not exist
  otherwise). Events count only two days after they happened, as of the date in the environment
  variable KANON_NIGHTLY_AS_OF (today without it): a new date every night, and dbt parses the
  whole project again when a var changes, but only the models that read an environment variable
  when it changes.
-#}
{{ config(materialized='k_anonymous', k=3, count_column='people', enabled=var('kanon_nightly', false)) }}

{{ kanon.release_counts(
    relation=api.Relation.create(database=target.database, schema=target.schema, identifier='nightly_events'),
    privacy_unit='person',
    dimensions=['branch', 'title'],
    measures={'events': 'count(*)'},
    remainder=true,
    delay={'column': 'happened_at', 'days': 2, 'as_of': env_var('KANON_NIGHTLY_AS_OF', '') or none},
    on_small_change=var('nightly_on_small_change', 'report'),
) }}
