{#-
  PRIVATE. One row per release attempt: RELEASED with its cell counts and suppression rate, or
  REFUSED with the failing check and the reason.
  Filled by the k_anonymous materialization, in the same transaction as the release it records.
  This model only creates the typed, empty shell (and adds new columns); its config, shared by
  the audit models, is in _audit__models.yml.
-#}
{{ kanon._audit_trail_model('releases') }}
