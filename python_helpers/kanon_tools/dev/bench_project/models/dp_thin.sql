{{ config(materialized='k_anonymous', k=var('bench_k'), enabled=var('bench_noise', false)) }}
-- the thin report's people, differentially private over 100,000 declared cells (bench_dp_cells):
-- BENCHMARKS.md, "Noise after k"; on only with var bench_noise
{{ kanon.release_counts(
    relation=ref('bench_events'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    noise={'mode': 'dp', 'epsilon': 1.0, 'max_cells_per_person': 5, 'budget': {'epsilon': 1000000},
           'cells': ref('bench_dp_cells'), 'key_env': 'KANON_NOISE_KEY'}
) }}
