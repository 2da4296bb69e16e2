{# Two records have no age; under missing_value_policy='suppress' with no budget they alone refuse. #}
{{ config(materialized='k_anonymous', k=2, enabled=var('records_refusals', false)) }}
{{ kanon.release_records(ref('records_people'), missing_value_policy='suppress', columns={
    'patron_id': 'drop', 'age': {'role': 'quasi_identifier', 'bins': [20, 40, 60]}, 'postal_code': 'drop', 'sex': 'drop',
    'visit_date': 'drop', 'diagnosis': 'drop', 'note': 'drop', 'Home Branch': 'drop'}) }}
