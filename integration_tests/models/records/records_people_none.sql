{{ config(materialized='table') }}
-- no records at all, for records_empty
select * from {{ ref('records_people') }} where 1 = 0
