{#- Visits, one on a date whose year four digits cannot write: 12345-01-05, whose day label
    would be 1234-01-05, the label of the leaf 1234-01-05 at level 0. Read by the bad input
    bad_records_date_far_year (refused); nothing else reads it. -#}
{{ config(materialized='table') }}
select
    'p1' as person,
    cast('1234-01-05' as date) as visit_date
union all
select
    'p2' as person,
    cast('12345-01-05' as date) as visit_date
union all
select
    'p3' as person,
    cast('2020-01-05' as date) as visit_date
union all
select
    'p4' as person,
    cast(null as date) as visit_date
