{{ config(materialized='table') }}
-- the floor of a record release: a plain create table as select of the same rows
select
    person_id,
    age,
    zip,
    visit_date,
    income,
    occupation,
    diagnosis
from {{ ref('bench_records') }}
