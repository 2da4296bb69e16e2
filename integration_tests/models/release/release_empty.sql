{#- An empty event table releases an empty mart. -#}
{{ config(materialized='k_anonymous', k=3, allow_empty_input=true) }}

{{ kanon.release_counts(
    relation=ref('release_events_empty'),
    privacy_unit='Patron Id',
    dimensions=['branch', 'title'],
    hierarchies={'branch': ref('release_hierarchy_branch'), 'title': ref('release_hierarchy_title')},
) }}
