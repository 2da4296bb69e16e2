{{ config(materialized='table', pre_hook="{{ kanon.release_planner_settings() }}") }}
-- the engine alone: the same release_counts call as a plain table, with the planner settings the
-- k_anonymous materialization sets (none on DuckDB); no gate, audit trail or swap. warn_missing
-- is off: outside k_anonymous it would scan the events once more
{{ kanon.release_counts(
    relation=ref('bench_events'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    k=var('bench_k'),
    warn_missing=false,
    hierarchies={
        'branch': ref('bench_hierarchy_branch'),
        'age_band': ref('bench_hierarchy_age_band'),
        'title': ref('bench_hierarchy_title')
    }
) }}
