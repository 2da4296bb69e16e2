{#-
  PRIVATE. One row per finest cell per release: what the release did to it (PASS, GENERALIZE,
  SUPPRESS) and where it was released. Filled by the k_anonymous materialization, in the same
  transaction as the release it records; this model only creates the typed, empty shell (and
  adds new columns), with kanon_audit_trail: never rebuilt, never granted, never hooked. Its
  schema comes from kanon's generate_schema_name (macros/audit/_audit_trail.sql), whatever the
  host project sets; move it deliberately with the var kanon_audit_schema.
-#}
{{ config(
    materialized='kanon_audit_trail',
    schema=var('kanon_audit_schema', 'kanon_audit'),
    full_refresh=false,
    grants={},
) }}

{{ kanon._audit_trail_model('cells') }}
