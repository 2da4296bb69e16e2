{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('hardening_events_wide'), privacy_unit='person', dimensions=['age', 'age_level'], k=2) }}
