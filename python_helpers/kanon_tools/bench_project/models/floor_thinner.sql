{{ config(materialized='table') }}
-- the bare aggregate of the thinner report
select
    branch,
    age_band,
    title,
    count(distinct patron_token) as people
from {{ ref('bench_events_thinner') }}
group by branch, age_band, title
