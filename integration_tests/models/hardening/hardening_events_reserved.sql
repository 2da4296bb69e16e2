{#- The events with a column named like one of the engine's own. -#}
{{ config(materialized='table') }}

select person, branch, title, amount, amount as _k_pu
from {{ ref('hardening_events') }}
