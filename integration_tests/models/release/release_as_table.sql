{#- release_odd_names as a plain table, with the planner settings as a pre-hook: the same rows, without the audit. -#}
{{ config(materialized='table', k=2, pre_hook="{{ kanon.release_planner_settings() }}") }}

{{ odd_names_release() }}
