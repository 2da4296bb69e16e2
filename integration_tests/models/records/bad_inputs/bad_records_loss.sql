{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), loss='fun', columns={'patron_id': 'drop', 'age': 'quasi_identifier', 'postal_code': 'drop', 'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
