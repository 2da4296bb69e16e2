{# A relation without records: published empty (with the materialization's warning), not refused. #}
{{ config(materialized='k_anonymous', k=3, allow_empty_input=true) }}
{{ kanon.release_records(ref('records_people_none'), l=2, columns={
    'patron_id': 'drop', 'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60]]}, 'postal_code': 'quasi_identifier',
    'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
