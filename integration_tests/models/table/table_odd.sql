{# Odd labels and names: quotes, non-ASCII, a NULL region, a real region called 'Total' (the
   totals are told apart by their level), people in several cells (totals not additive). #}
{{ config(materialized='k_anonymous', k=3, count_column='visitors') }}
{{ kanon.release_table(ref('table_odd_events'), privacy_unit='visitor', row_dimension='Région',
    column_dimension="Kind's") }}
