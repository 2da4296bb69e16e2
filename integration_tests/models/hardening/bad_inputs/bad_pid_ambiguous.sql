{{ config(materialized='table', enabled=(target.type == 'postgres' and var('kanon_bad_inputs', false) | as_bool)) }}
{{ kanon.release_counts(relation=ref('hardening_events_wide'), privacy_unit='Pid', dimensions=['branch'], k=2) }}
