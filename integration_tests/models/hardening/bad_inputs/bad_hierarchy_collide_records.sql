{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_records(ref('hardening_events'), columns={'person': 'identifier', 'branch': 'drop', 'title': {'role': 'quasi_identifier', 'hierarchy': ref('hardening_hierarchy_collide')}, 'shelf': 'drop', 'amount': 'drop'}) }}
