{#- What the planner settings pre-hook leaves in effect: 'off' three times on Postgres; none on DuckDB. -#}
{{ config(materialized='table', pre_hook="{{ kanon.release_planner_settings() }}") }}

{% if target.type == 'postgres' -%}
select
    current_setting('jit') as jit,
    current_setting('enable_nestloop') as nested_loops,
    current_setting('enable_mergejoin') as merge_joins
{%- else -%}
select
    'none' as jit,
    'none' as nested_loops,
    'none' as merge_joins
{%- endif %}
