{# A linked pair, first half: 123 people by day x kind, k=5. Thursday's 3 people are hidden with
   their day total; the search pairs Thursday with Friday (the cheapest partner here). #}
{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_linked_events'), privacy_unit='person', row_dimension='day', column_dimension='kind') }}
