{{ config(materialized='table') }}
-- the bare aggregate of the thin report
select
    branch,
    age_band,
    title,
    count(distinct patron_token) as people
from {{ ref('bench_events') }}
group by branch, age_band, title
