{# Released with k=3; with the var records_k set high, no node reaches k and the release is
   refused, keeping the previous one. #}
{{ config(materialized='k_anonymous', k=var('records_k', 3)) }}
{{ kanon.release_records(ref('records_people'), columns={
    'patron_id': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60]]},
    'postal_code': {'role': 'quasi_identifier', 'hierarchy': ref('records_hierarchy_postal')},
    'sex': 'drop', 'visit_date': 'drop', 'diagnosis': 'keep', 'note': 'drop', 'Home Branch': 'drop'}) }}
