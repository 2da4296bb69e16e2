{#- A release whose post-hook (inside the release's transaction, so just before the commit) records
    whether the old release's backup table still exists. -#}
{{ config(
    materialized='k_anonymous',
    k=2,
    post_hook="insert into {{ ref('hardening_backup_seen') }} select count(*) from information_schema.tables where table_name = '{{ this.identifier }}__dbt_backup'",
) }}
-- depends_on: {{ ref('hardening_backup_seen') }}

select title, count(distinct person) as people
from {{ ref('hardening_events') }}
group by title
having count(distinct person) >= 2
