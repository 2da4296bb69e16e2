{{ config(materialized='view') }}
-- the thinner profile has its own catalog; branches and age bands are the same in both
select
    level_0,
    level_1,
    level_2,
    level_3
from {{ var('bench_hierarchy_thinner') ~ 'title' }}
