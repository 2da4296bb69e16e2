{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('hardening_events'), privacy_unit='person', dimensions=['branch'], k=2, dominance={'rule': 'nk', 'value': 'amount', 'n': 3, 'k': 85}) }}
