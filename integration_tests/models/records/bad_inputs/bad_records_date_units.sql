{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), columns={'patron_id': 'drop', 'age': 'drop', 'postal_code': 'drop', 'sex': 'drop', 'visit_date': {'role': 'quasi_identifier', 'date': ['year', 'month']}, 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
