{#-
  PRIVATE. One row per release attempt: RELEASED with its cell counts and suppression rate, or
  REFUSED with the reason. Filled by the k_anonymous materialization; this model only creates
  the typed, empty shell.
-#}
{{ config(
    materialized='incremental',
    full_refresh=false,
    on_schema_change='append_new_columns',
) }}

{{ kanon._audit_shell('releases') }}
