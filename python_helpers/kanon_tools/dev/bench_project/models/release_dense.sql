{{ config(materialized='k_anonymous', k=var('bench_k')) }}
-- the kanon release of the dense report: default ladder, gate, audit trail and swap included
{{ kanon.release_counts(
    relation=ref('bench_events_subject'),
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'subject'],
    hierarchies={
        'branch': ref('bench_hierarchy_branch'),
        'age_band': ref('bench_hierarchy_age_band'),
        'subject': ref('bench_hierarchy_subject')
    }
) }}
