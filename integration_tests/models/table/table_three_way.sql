{# Three dimensions, one with a hierarchy: branch -> region -> all, age band and action flat.
   Subtotals by region; some patrons in several actions (totals along action not additive). #}
{{ config(materialized='k_anonymous', k=5, count_column='patrons') }}
{{ kanon.release_table(ref('table_branch_events'), privacy_unit='patron', dimensions=['branch', 'age_band', 'action'],
    hierarchies={'branch': ref('table_hierarchy_branch')}) }}
