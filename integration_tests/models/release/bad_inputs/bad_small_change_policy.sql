{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch'], on_small_change='freeze') }}
