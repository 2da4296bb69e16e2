{#- A dimension whose name holds a double quote. -#}
{{ config(materialized='k_anonymous', k=2) }}

{{ kanon.release_counts(relation=ref('hardening_events_wide'), privacy_unit='person', dimensions=['say "hi"']) }}
