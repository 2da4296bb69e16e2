{{ config(materialized='table') }}
{#- checked when the model runs (execute): parsing a disabled model renders its SQL too -#}
select 1 as x /* {{ kanon.release_planner_settings(local='true') if execute }} */
