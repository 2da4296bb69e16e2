{# Not kanon's search: day x branch with the pattern it gets alone (Thursday paired with
   Wednesday, Friday's day total published), recorded as linked to day x kind, which hides
   Friday's day total. Each table passes alone; together Thursday's day total is the grand total
   less the others. Refused: no_exact_disclosure, which checks the two together. #}
{{ config(materialized='k_anonymous', k=5, kanon_release_kind='table', enabled=var('table_refusals', false)) }}
{{ tampered_linked_release(ref('table_linked_events'), ref('table_linked_kind')) }}
