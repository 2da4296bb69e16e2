{{ config(materialized='table') }}
select distinct
    level_1 as level_0,
    level_2 as level_1,
    level_3 as level_2
from {{ ref('bench_hierarchy_title') }}
