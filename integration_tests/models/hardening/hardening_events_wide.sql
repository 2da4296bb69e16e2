{#- The events with columns named to collide: a name with a double quote, a dimension `age` next
    to one called `age_level`, and on Postgres `pid` next to `PID` (DuckDB folds case, so it
    cannot hold both): `pid` is the person, `PID` the same value for everybody. -#}
{{ config(materialized='table') }}

select
    person,
    branch,
    title,
    amount,
    shelf as "say ""hi""",
    branch as age,
    title as age_level,
    person as pid
    {%- if target.type == 'postgres' %},
    cast('same' as varchar(10)) as "PID"
    {%- endif %}
from {{ ref('hardening_events') }}
