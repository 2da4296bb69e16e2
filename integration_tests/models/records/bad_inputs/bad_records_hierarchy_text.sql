{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_records(ref('records_people'), columns={'patron_id': 'drop', 'age': 'quasi_identifier', 'postal_code': {'role': 'quasi_identifier', 'hierarchy': 'records_hierarchy_postal'}, 'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
