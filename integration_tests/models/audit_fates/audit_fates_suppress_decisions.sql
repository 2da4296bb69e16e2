{#- What audit_fates_suppress does to every finest cell, from the events (one row per finest cell). -#}
{{ config(materialized='table') }}

{{ kanon.release_decisions(k=3, **audit_fates_arguments('suppress')) }}
