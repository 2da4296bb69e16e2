{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch'], delay={'column': 'loaned_at', 'days': 2}) }}
