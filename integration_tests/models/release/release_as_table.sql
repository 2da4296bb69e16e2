{#- release_odd_names as a plain table with the planner settings as a pre-hook: the same rows without the audit. -#}
{{ config(materialized='table', pre_hook="{{ kanon.release_planner_settings() }}") }}

{{ kanon.release_counts(
    relation=ref('release_events'),
    privacy_unit='Patron Id',
    dimensions=['branch', 'Age Band', 'title'],
    hierarchies={
        'branch': ref('release_hierarchy_branch'),
        'Age Band': ref('release_hierarchy_age'),
        'title': ref('release_hierarchy_title'),
    },
    k=2,
    measures={'loans': 'count(*)'},
    remainder=true,
) }}
