{# Not kanon's search: the worked example's long form made with k=3 while the model's config says
   k=5, so cells of 3 and 4 people are published. The gate's recount (table_recount) must refuse
   it against the config's k, whatever the plan says of itself. #}
{{ config(materialized='k_anonymous', k=5, kanon_release_kind='table', enabled=var('table_refusals', false)) }}
{{ tampered_table_release(ref('table_activity'), 3, []) }}
