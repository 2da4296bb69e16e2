{# Five diagnoses cannot make a class 6-diverse: refused as not diverse. #}
{{ config(materialized='k_anonymous', k=2, enabled=var('records_refusals', false)) }}
{{ kanon.release_records(ref('records_people'), l=6, columns={
    'patron_id': 'drop', 'age': 'quasi_identifier', 'postal_code': 'drop', 'sex': 'drop',
    'visit_date': 'drop', 'diagnosis': 'sensitive', 'note': 'drop', 'Home Branch': 'drop'}) }}
