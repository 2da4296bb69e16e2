{{ config(materialized='view') }}
select
    level_0,
    level_1,
    level_2,
    level_3
from {{ var('bench_hierarchy') ~ 'title' }}
