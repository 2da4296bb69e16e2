{# The pair's second half: the same people by day x branch, linked to day x kind. Alone (see
   table_linked_branch_alone) the search would pair Thursday with Wednesday, and Friday's day
   total, published here, would give Thursday's away in day x kind; linked, the day totals are
   searched as one glued table and Thursday's partner is the one day x kind already hides. #}
{{ config(materialized='k_anonymous', k=5) }}
{{ kanon.release_table(ref('table_linked_events'), privacy_unit='person', row_dimension='day', column_dimension='branch',
    linked_to=[ref('table_linked_kind')]) }}
