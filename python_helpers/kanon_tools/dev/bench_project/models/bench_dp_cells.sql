{{ config(materialized='table', enabled=var('bench_noise', false)) }}
-- the declared cells of dp_thin (BENCHMARKS.md, "Noise after k"): every branch x age band x the
-- first 2,500 titles of the title hierarchy, 100,000 cells (8 x 5 x 2,500), from the hierarchies alone
select branch.level_0 as branch, age.level_0 as age_band, title.level_0 as title
from (select distinct level_0 from {{ ref('bench_hierarchy_branch') }}) as branch
cross join (select distinct level_0 from {{ ref('bench_hierarchy_age_band') }}) as age
cross join (
    select level_0 from {{ ref('bench_hierarchy_title') }} order by level_0 limit 2500
) as title
