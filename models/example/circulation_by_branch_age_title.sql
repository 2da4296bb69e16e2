{#-
  The flagship report: loans by branch x patron age band x title, released k-anonymously.
  Most finest cells are thin (a few thousand loans over hundreds of titles), so the ladder
  coarsens the most identifying dimension first: title to subject, then age band, then title to
  subject class, then branch to region, then all ages. It stops there on purpose: a cell that
  cannot reach 5 patrons even as region x subject class is suppressed rather than folded into
  a grand total.
-#}
{{ config(
    materialized='k_anonymous',
    k=5,
    count_column='patrons',
    grants={'select': var('kanon_example_readers', [])},
) }}

{{ kanon.release_counts(
    relation=ref('circulation_events'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    hierarchies={
        'branch': ref('hierarchy_branch'),
        'age_band': ref('hierarchy_age_band'),
        'title': ref('hierarchy_title'),
    },
    ladder=[
        {'title': 1},
        {'age_band': 1},
        {'title': 2},
        {'branch': 1},
        {'age_band': 2},
    ],
    measures={'loans': 'count(*)'},
) }}
