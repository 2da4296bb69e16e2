{# The pair's second half released without linked_to: safe alone, not with day x kind (the
   attack over both finds Thursday's day total). #}
{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_linked_events'), privacy_unit='person', row_dimension='day', column_dimension='branch') }}
