{# The patron id replaced by its keyed hash (the key from KANON_PSEUDONYM_KEY, never in the SQL). #}
{{ config(materialized='k_anonymous', k=3, max_suppression=0.1) }}
{{ kanon.release_records(ref('records_people'), columns={
    'patron_id': {'role': 'identifier', 'pseudonym': true},
    'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60]]},
    'postal_code': {'role': 'quasi_identifier', 'hierarchy': ref('records_hierarchy_postal')},
    'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'keep', 'note': 'drop', 'Home Branch': 'drop'}) }}
