{#- Quoted column names, apostrophes, double quotes and non-ASCII labels, default ladder. -#}
{{ config(materialized='k_anonymous', k=2) }}

{{ kanon.release_counts(
    relation=ref('release_events'),
    privacy_unit='Patron Id',
    dimensions=['branch', 'Age Band', 'title'],
    hierarchies={
        'branch': ref('release_hierarchy_branch'),
        'Age Band': ref('release_hierarchy_age'),
        'title': ref('release_hierarchy_title'),
    },
    measures={'loans': 'count(*)'},
    remainder=true,
) }}
