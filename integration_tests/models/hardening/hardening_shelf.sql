{#- A dimension without a hierarchy holding a real '*' and NULLs. -#}
{{ config(materialized='k_anonymous', k=2) }}

{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['shelf']) }}
