{{ config(materialized='view') }}
-- the events bench_table.py wrote (var bench_table_events): one per person, in one cell of the table
select
    person_id,
    area,
    topic
from {{ var('bench_table_events', 'main.table_events') }}
