{#-
  A hand-written aggregate behind the fail-closed gate. The var release_gate_min_people decides
  what it tries to publish: 2 (the default) publishes only safe rows; 1 tries to publish a cell
  of one person, which the materialization must refuse, leaving the last release untouched.
-#}
{{ config(
    materialized='k_anonymous',
    k=2,
    count_column='people',
    grants={'select': var('release_gate_readers', [])},
) }}

select
    title,
    count(distinct {{ adapter.quote('Patron Id') }}) as people
from {{ ref('release_events') }}
group by title
having count(distinct {{ adapter.quote('Patron Id') }}) >= {{ var('release_gate_min_people', 2) }}
