{#- What kanon.release_planner_settings renders, and what its pre-hook leaves in effect:
    three `set`s and 'off' three times on Postgres; nothing to set (and no hook run) on DuckDB. -#}
{{ config(materialized='table', pre_hook="{{ kanon.release_planner_settings() }}") }}

select
    '{{ kanon.release_planner_settings() }}' as settings,
{%- if target.type == 'postgres' %}
    current_setting('jit') as jit,
    current_setting('enable_nestloop') as nested_loops,
    current_setting('enable_mergejoin') as merge_joins
{%- else %}
    'none' as jit,
    'none' as nested_loops,
    'none' as merge_joins
{%- endif %}
