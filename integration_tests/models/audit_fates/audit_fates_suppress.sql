{#- A release of the cells of seeds/audit_fates under null_policy='suppress' (see its yml). -#}
{{ config(materialized='k_anonymous', k=3) }}

{{ kanon.release_counts(**audit_fates_arguments('suppress')) }}
