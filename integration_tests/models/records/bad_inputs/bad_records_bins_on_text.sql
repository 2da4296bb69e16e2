{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), columns={'patron_id': 'drop', 'age': 'drop', 'postal_code': {'role': 'quasi_identifier', 'bins': [10000, 50000]}, 'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
