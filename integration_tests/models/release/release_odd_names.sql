{#- Quoted column names, apostrophes, double quotes and non-ASCII labels, default ladder. -#}
{{ config(materialized='k_anonymous', k=2) }}

{{ odd_names_release() }}
