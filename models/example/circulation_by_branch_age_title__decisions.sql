{#-
  What the flagship release did to every finest cell (PASS / GENERALIZE / SUPPRESS). It names
  thin cells, so it is built in the private example_audit schema, never granted to readers.
-#}
{{ config(materialized='table', schema='example_audit', k=5) }}

{{ kanon.release_decisions(
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
    count_column='patrons',
) }}
