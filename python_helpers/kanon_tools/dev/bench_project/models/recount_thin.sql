{{ config(materialized='table') }}
-- the floor plus the one recount in distinct people any release of the thin report must do
{{ bench_recount(ref('bench_events'), ref('bench_hierarchy_title')) }}
