{# The worked example with a protection width of 3: every hidden cell's interval, from what is
   published, at least 3 people wide (the cubes must move by 3), so more is hidden. #}
{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_activity'), privacy_unit='user_id', row_dimension='day', column_dimension='action',
    protection=3) }}
