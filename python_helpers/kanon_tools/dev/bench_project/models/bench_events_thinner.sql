{{ config(materialized='view') }}
-- the events of the generator's `thinner` profile (var bench_events_thinner)
select
    patron_token,
    branch,
    age_band,
    title,
    borrowed_at
from {{ var('bench_events_thinner') }}
