{{ config(materialized='k_anonymous', k=2, max_suppression='10%') }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['branch']) }}
