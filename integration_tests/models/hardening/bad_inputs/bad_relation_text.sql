{#- relation given as its name, not a ref: refused before any SQL is built. -#}
{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(relation='hardening_events', privacy_unit='person', dimensions=['title']) }}
