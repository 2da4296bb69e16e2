{{ config(materialized='table') }}

select cast(0 as bigint) as backups where 1 = 0
