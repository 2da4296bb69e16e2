{{ config(materialized='k_anonymous', k=var('bench_k'), enabled=var('bench_noise', false)) }}
-- release_thin with cell-key noise (BENCHMARKS.md, "Noise after k"): kanon's example ptable, so
-- on only with vars {bench_noise: true, kanon_examples: true, kanon_example_noise: true} (the seed is the example's)
{{ kanon.release_counts(
    relation=ref('bench_events'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    hierarchies={
        'branch': ref('bench_hierarchy_branch'),
        'age_band': ref('bench_hierarchy_age_band'),
        'title': ref('bench_hierarchy_title')
    },
    noise={'mode': 'cell_key', 'ptable': ref('kanon', 'ptable_k5'), 'key_env': 'KANON_NOISE_KEY'}
) }}
