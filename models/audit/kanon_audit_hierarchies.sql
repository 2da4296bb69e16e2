{#-
  PRIVATE. The hierarchies releases were made with, once per content hash: what
  kanon.audit_cell_fates needs to replay a past release after its hierarchy seed changed.
  Filled by the k_anonymous materialization, in the same transaction as the release it records.
  This model only creates the typed, empty shell (and adds new columns); its config, shared by
  the audit models, is in _audit__models.yml.
-#}
{{ kanon._audit_trail_model('hierarchies') }}
