{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch'], hierarchies={'branch': ref('release_hierarchy_branch')}, k=2) }}
