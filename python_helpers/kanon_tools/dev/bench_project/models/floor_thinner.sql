{{ config(materialized='table') }}
-- the bare aggregate of the thinner report
{{ bench_floor(ref('bench_events_thinner'), ['branch', 'age_band', 'title']) }}
