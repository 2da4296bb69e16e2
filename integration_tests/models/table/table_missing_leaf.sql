{# The three-way table with a hierarchy that lacks one branch (MEADOW): its patrons would be in no
   cell and no total. Refused before anything is counted: table_search. #}
{{ config(materialized='k_anonymous', k=5, count_column='patrons', enabled=var('table_refusals', false)) }}
{{ kanon.release_table(ref('table_branch_events'), privacy_unit='patron', dimensions=['branch', 'age_band', 'action'],
    hierarchies={'branch': ref('table_hierarchy_branch_partial')}) }}
