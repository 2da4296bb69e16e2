{{ config(materialized='k_anonymous', k=2) }}
select title, cast('5' as varchar(5)) as people from {{ ref('hardening_events') }} group by title
