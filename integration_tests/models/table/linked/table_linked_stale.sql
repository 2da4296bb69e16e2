{# Day x kind of events that are not those day x branch (released alone) was released from (one
   person less): refused before any search (check table_search), since the linked table's cells
   cannot be recounted to what its mart publishes. #}
{{ config(materialized='k_anonymous', k=5, enabled=var('table_refusals', false)) }}
{{ kanon.release_table(ref('table_linked_events_changed'), privacy_unit='person', row_dimension='day', column_dimension='kind',
    linked_to=[ref('table_linked_branch_alone')]) }}
