{#- The release statement runs the model's sql_header: it defines the function the SQL calls. -#}
{%- set header -%}
{%- if target.type == 'postgres' -%}
create or replace function pg_temp.kanon_probe() returns integer language sql as 'select 7';
{%- else -%}
create or replace temp macro kanon_probe() as 7;
{%- endif -%}
{%- endset -%}
{{ config(materialized='k_anonymous', k=2, sql_header=header) }}

select
    title,
    count(distinct person) as people,
    max({{ 'pg_temp.' if target.type == 'postgres' }}kanon_probe()) as probe
from {{ ref('hardening_events') }}
group by title
having count(distinct person) >= 2
