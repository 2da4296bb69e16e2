{{ config(materialized='k_anonymous', k=2, count_column='patrons') }}
select 'x' as title, 7 as people
