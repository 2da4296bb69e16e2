{{ config(materialized='table') }}
-- the floor of Adult's record release: a plain create table as select of the same rows
select * from {{ var('bench_adult') or 'main.adult' }}
