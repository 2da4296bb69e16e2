{{ config(materialized='table') }}
-- the bare aggregate of the thin report
{{ bench_floor(ref('bench_events'), ['branch', 'age_band', 'title']) }}
