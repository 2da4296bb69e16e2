{#-
  PRIVATE. One row per finest cell per release: what the release did to it (PASS, GENERALIZE,
  SUPPRESS) and where it was released. Filled by the k_anonymous materialization, in the same
  transaction as the release it records; this model only creates the typed, empty shell.
-#}
{{ config(
    materialized='incremental',
    full_refresh=false,
    on_schema_change='append_new_columns',
) }}

{{ kanon._audit_shell('cells') }}
