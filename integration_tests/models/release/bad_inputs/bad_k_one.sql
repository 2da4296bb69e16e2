{{ config(materialized='k_anonymous', k=1) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch', 'title'], hierarchies={'branch': ref('release_hierarchy_branch'), 'title': ref('release_hierarchy_title')}, k=1) }}
