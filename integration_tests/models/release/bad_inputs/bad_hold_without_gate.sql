{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('release_events'), privacy_unit='Patron Id', dimensions=['branch'], k=2, on_small_change='hold') }}
