{{ config(materialized='k_anonymous', k=2) }}
select 'x' as title, cast(null as integer) as people
