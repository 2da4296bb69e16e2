{{ config(materialized='table') }}
{{ kanon.release_counts(relation=ref('hardening_events_reserved'), privacy_unit='person', dimensions=['branch'], k=2, measures={'amount': 'sum(amount)'}) }}
