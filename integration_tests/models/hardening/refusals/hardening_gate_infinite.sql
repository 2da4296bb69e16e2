{{ config(materialized='k_anonymous', k=2) }}

select title, cast('Infinity' as double precision) as people
from {{ ref('hardening_events') }}
group by title
