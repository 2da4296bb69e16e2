{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='patron_token', dimensions=['branch'], k=2) }}
