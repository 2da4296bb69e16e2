{#- A hand-written release with an index, next to which a user keeps a table named like its staging. -#}
{{ config(materialized='k_anonymous', k=2, indexes=[{'columns': ['title']}], grants={'select': var('hardening_readers', [])}) }}

select title, count(distinct person) as people
from {{ ref('hardening_events') }}
group by title
having count(distinct person) >= 2
