{#- The same release as a plain table (no audit): the warning then comes from a scan at compile time. -#}
{{ config(materialized='table') }}

{{ kanon.release_counts(
    relation=ref('release_events'),
    privacy_unit='Patron Id',
    dimensions=['branch', 'title'],
    hierarchies={'branch': ref('release_hierarchy_branch'), 'title': ref('release_hierarchy_title_partial')},
    k=2,
) }}
