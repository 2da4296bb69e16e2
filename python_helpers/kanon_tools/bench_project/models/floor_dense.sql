{{ config(materialized='table') }}
-- the bare aggregate of the dense report
select
    branch,
    age_band,
    subject,
    count(distinct patron_token) as people
from {{ ref('bench_events_subject') }}
group by branch, age_band, subject
