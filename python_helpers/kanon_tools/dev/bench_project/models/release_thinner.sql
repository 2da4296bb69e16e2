{{ config(materialized='k_anonymous', k=var('bench_k')) }}
-- the kanon release of the thinner report: default ladder, gate, audit trail and swap included
{{ kanon.release_counts(
    relation=ref('bench_events_thinner'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    hierarchies={
        'branch': ref('bench_hierarchy_branch'),
        'age_band': ref('bench_hierarchy_age_band'),
        'title': ref('bench_hierarchy_title_thinner')
    }
) }}
