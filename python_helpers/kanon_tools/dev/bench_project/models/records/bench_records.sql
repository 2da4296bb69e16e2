{{ config(materialized='view') }}
-- the synthetic people bench_records.py wrote (var bench_records)
select
    person_id,
    age,
    zip,
    visit_date,
    income,
    occupation,
    diagnosis
from {{ var('bench_records') }}
