{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_records(ref('hardening_far_dates'), columns={'person': 'identifier', 'visit_date': {'role': 'quasi_identifier', 'date': ['day', 'year']}}) }}
