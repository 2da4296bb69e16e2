{{ config(materialized='view') }}
-- the areas' hierarchy bench_table.py --shape 3d wrote: area -> district -> '*'
select
    level_0,
    level_1,
    level_2
from {{ var('bench_table3_events', 'main.table3_events') ~ '_hierarchy_area' }}
