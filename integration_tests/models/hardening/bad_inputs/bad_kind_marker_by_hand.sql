{#- a hand-written model with a column named like the long form's marker. -#}
{{ config(materialized='k_anonymous', k=2) }}
select title, 'release' as _kanon_row, count(distinct person) as people from {{ ref('hardening_events') }} group by title having count(distinct person) >= 2
