{# The worked example with zeros hidden as primaries, counting rows (each row an event): the
   events of nobody count too, and Tue Saves and Mon Follows gain one. #}
{{ config(materialized='k_anonymous', k=5, count_column='events') }}
{{ kanon.release_table(ref('table_activity'), count_rows=true, row_dimension='day', column_dimension='action',
    hide_zeros=true) }}
