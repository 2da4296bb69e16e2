{#- a release kind kanon does not have, set by hand. -#}
{{ config(materialized='k_anonymous', k=2, kanon_release_kind='microdata') }}
select title, count(distinct person) as people from {{ ref('hardening_events') }} group by title having count(distinct person) >= 2
