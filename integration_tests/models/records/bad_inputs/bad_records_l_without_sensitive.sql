{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), l=2, columns={'patron_id': 'drop', 'age': 'quasi_identifier', 'postal_code': 'drop', 'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'keep', 'note': 'drop', 'Home Branch': 'drop'}) }}
