{{ config(materialized='view') }}
-- the events bench_table.py --shape 3d wrote (var bench_table3_events): one per person, in one leaf cell
select
    person_id,
    area,
    topic,
    age_band
from {{ var('bench_table3_events', 'main.table3_events') }}
