{{ config(materialized='table') }}
-- the floor of the 3-D table release: the same cells, subtotals and totals counted (areas rolled
-- up to districts and the total, topics and age bands to their totals), nothing hidden or checked
select
    events.area,
    hierarchy.level_1 as district,
    events.topic,
    events.age_band,
    count(distinct events.person_id) as people
from {{ ref('bench_table3_events') }} as events
inner join {{ ref('bench_table3_hierarchy_area') }} as hierarchy
    on events.area = hierarchy.level_0
group by rollup(hierarchy.level_1, events.area), cube(events.topic, events.age_band)
