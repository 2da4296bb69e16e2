{#-
  The flagship report's noisy twin: the same release (the same rows, decided on true counts),
  each count perturbed by the Cell Key Method after the k rule (docs/reference/noise.md). The
  same patrons give the same perturbation in every release made with the same key and table.
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
    noise={'mode': 'cell_key', 'ptable': ref('ptable_k5'), 'key_env': 'KANON_NOISE_KEY'},
) }}
