{{ config(materialized='table') }}
-- the dense report's dimension: each loan's subject (the title hierarchy's level 1)
select
    e.patron_token,
    e.branch,
    e.age_band,
    h.level_1 as subject
from {{ ref('bench_events') }} as e
inner join {{ ref('bench_hierarchy_title') }} as h on e.title = h.level_0
