{#- Postgres: `pid` (the person) next to `PID` (one value for all); privacy_unit='pid' is `pid`. -#}
{{ config(materialized='k_anonymous', k=5, enabled=(target.type == 'postgres')) }}

{{ kanon.release_counts(relation=ref('hardening_events_wide'), privacy_unit='pid', dimensions=['branch']) }}
