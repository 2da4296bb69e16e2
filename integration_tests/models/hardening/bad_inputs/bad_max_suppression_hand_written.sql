{{ config(materialized='k_anonymous', k=2, max_suppression=0.2) }}
select title, count(distinct person) as people from {{ ref('hardening_events') }} group by title having count(distinct person) >= 2
