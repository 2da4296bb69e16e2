{# The linked pair's events less one Monday person: not what day x kind was released from. #}
{{ config(materialized='table', enabled=var('table_refusals', false)) }}
select * from {{ ref('table_linked_events') }} where person <> 'p001'
