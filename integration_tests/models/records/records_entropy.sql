{# Entropy l-diversity with a budget (not monotone: the search evaluates every node k allows),
   height as the loss, records with a missing quasi-identifier suppressed up front. #}
{{ config(materialized='k_anonymous', k=3, max_suppression=0.15) }}
{{ kanon.release_records(ref('records_people'), l=2, diversity='entropy', loss='height', missing_value_policy='suppress', columns={
    'patron_id': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50, 60, 70], [20, 40, 60]]},
    'postal_code': {'role': 'quasi_identifier', 'hierarchy': ref('records_hierarchy_postal')},
    'sex': 'quasi_identifier',
    'visit_date': 'drop',
    'diagnosis': 'sensitive',
    'note': 'drop',
    'Home Branch': 'drop'}) }}
