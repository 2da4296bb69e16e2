{{ config(materialized='view') }}
-- the events the generator wrote (var bench_events)
select
    patron_token,
    branch,
    age_band,
    title,
    borrowed_at
from {{ var('bench_events') }}
