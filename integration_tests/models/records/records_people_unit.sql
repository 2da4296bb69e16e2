{# Classes count patrons, not records; the budget counts patrons too. #}
{{ config(materialized='k_anonymous', k=3, max_suppression=0.1) }}
{{ kanon.release_records(ref('records_people'), privacy_unit='patron_id', suppression_unit='people', loss='discernibility', columns={
    'patron_id': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50, 60, 70], [20, 40, 60]]},
    'postal_code': {'role': 'quasi_identifier', 'hierarchy': ref('records_hierarchy_postal')},
    'sex': 'quasi_identifier',
    'visit_date': 'drop',
    'diagnosis': 'sensitive',
    'note': 'drop',
    'Home Branch': 'drop'}) }}
