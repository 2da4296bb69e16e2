{#-
  kanon.release_planner_settings: the planner settings a release runs with, as SQL (empty where
  none are needed). The k_anonymous materialization applies them to its own transaction; a
  release_counts model materialized otherwise can apply them in a pre-hook:

    {{ config(materialized='table', pre_hook="{{ kanon.release_planner_settings() }}") }}

  local=true scopes them to the current transaction (`set local`); otherwise they last for the
  session, that is the rest of the dbt thread's connection.

  Postgres:
    - jit off: the release statement is long and its estimated cost high, so Postgres
      JIT-compiles it, which took 23 s of a 27 s release at 1M events (the query ran in 8 s);
    - nested loops and merge joins off: the engine's CTEs are estimated at a row or two after a
      filter, and Postgres then picked nested loops over hundreds of thousands of rows (minutes
      instead of seconds at 1M events), or sorted a million events to merge them with an empty
      table. Every join of the engine is an equality that a hash join serves well.
-#}
{% macro release_planner_settings(local=false) %}
  {%- do kanon._check_boolean(local, 'local', kanon._who('kanon.release_planner_settings')) -%}
  {{ return(adapter.dispatch('release_planner_settings', 'kanon')(local)) }}
{% endmacro %}

{% macro default__release_planner_settings(local) %}
  {{ return('') }}
{% endmacro %}

{% macro postgres__release_planner_settings(local) %}
  {%- set set = 'set local' if local else 'set' -%}
  {{ return(set ~ ' jit = off; ' ~ set ~ ' enable_nestloop = off; ' ~ set ~ ' enable_mergejoin = off') }}
{% endmacro %}
