{{ config(materialized='table') }}
-- the floor of a table release: the same cells and totals counted, with nothing hidden or checked
select
    area,
    topic,
    count(distinct person_id) as people
from {{ ref('bench_table_events') }}
group by area, topic
union all
select
    area,
    null as topic,
    count(distinct person_id) as people
from {{ ref('bench_table_events') }}
group by area
union all
select
    null as area,
    topic,
    count(distinct person_id) as people
from {{ ref('bench_table_events') }}
group by topic
union all
select
    null as area,
    null as topic,
    count(distinct person_id) as people
from {{ ref('bench_table_events') }}
