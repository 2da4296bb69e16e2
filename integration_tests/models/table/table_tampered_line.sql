{# Not kanon's search: the worked example's primaries hidden and nothing else, so Mon's and Tue's
   rows each have one hidden cell, their total minus the others. Refused: table_line_rule. #}
{{ config(materialized='k_anonymous', k=5, kanon_release_kind='table', enabled=var('table_refusals', false)) }}
{{ tampered_table_release(ref('table_activity'), 5, []) }}
