{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['branch'], k=2, count_rows='false') }}
