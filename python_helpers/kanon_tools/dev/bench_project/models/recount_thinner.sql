{{ config(materialized='table') }}
-- the floor plus the one recount in distinct people any release of the thinner report must do
{{ bench_recount(ref('bench_events_thinner'), ref('bench_hierarchy_title_thinner')) }}
