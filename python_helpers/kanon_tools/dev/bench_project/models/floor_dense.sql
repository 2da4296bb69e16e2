{{ config(materialized='table') }}
-- the bare aggregate of the dense report
{{ bench_floor(ref('bench_events_subject'), ['branch', 'age_band', 'subject']) }}
