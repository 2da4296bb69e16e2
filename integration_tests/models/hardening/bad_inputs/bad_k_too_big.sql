{{ config(materialized='k_anonymous', k=3000000000) }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['branch']) }}
