{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), privacy_unit='patron_id', columns={'patron_id': 'keep', 'age': 'quasi_identifier', 'postal_code': 'drop', 'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
