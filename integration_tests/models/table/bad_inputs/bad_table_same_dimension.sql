{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_activity'), privacy_unit='user_id', dimensions=['day', 'DAY']) }}
