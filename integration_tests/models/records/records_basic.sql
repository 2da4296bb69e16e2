{# Every generalizer at once: bins, a hierarchy (with a code it lacks), dates, and a column
   without one (its name has a space); NULLs in age, sex and diagnosis; the note kept as it is. #}
{{ config(materialized='k_anonymous', k=3, max_suppression=0.1) }}
{{ kanon.release_records(ref('records_people'), l=2, columns={
    'patron_id': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50, 60, 70], [20, 40, 60]]},
    'postal_code': {'role': 'quasi_identifier', 'hierarchy': ref('records_hierarchy_postal')},
    'sex': 'quasi_identifier',
    'visit_date': {'role': 'quasi_identifier', 'date': ['month', 'quarter', 'year']},
    'diagnosis': 'sensitive',
    'note': 'keep',
    'Home Branch': 'quasi_identifier'}) }}
