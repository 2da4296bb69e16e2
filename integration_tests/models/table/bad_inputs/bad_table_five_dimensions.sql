{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_branch_events'), privacy_unit='patron', dimensions=['branch', 'age_band', 'action', 'branch', 'age_band']) }}
