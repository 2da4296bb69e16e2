{{ config(materialized='table') }}
{{ kanon.release_table(ref('table_activity'), privacy_unit='user_id', dimensions=['day', 'action']) }}
