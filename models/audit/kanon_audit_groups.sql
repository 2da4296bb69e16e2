{#-
  PRIVATE. One row per group of a release: what was published (PASS, GENERALIZE, REMAINDER)
  and what was suppressed (SUPPRESS); kanon.audit_cell_fates derives any finest cell's fate.
  Filled by the k_anonymous materialization, in the same transaction as the release it records.
  This model only creates the typed, empty shell (and adds new columns); its config, shared by
  the audit models, is in _audit__models.yml.
-#}
{{ kanon._audit_trail_model('groups') }}
