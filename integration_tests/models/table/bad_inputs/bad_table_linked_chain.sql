{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_linked_events'), privacy_unit='person', row_dimension='day', column_dimension='kind', linked_to=[ref('table_linked_branch')]) }}
