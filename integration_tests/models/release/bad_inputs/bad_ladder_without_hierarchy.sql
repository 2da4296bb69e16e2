{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch', 'title'], hierarchies={'title': ref('release_hierarchy_title')}, k=2, ladder=[{'branch': 1}]) }}
