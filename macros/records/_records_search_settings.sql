{#-
  Settings the lattice search runs its queries with, for the transaction it runs in (nothing
  where none are needed).

  Postgres: jit off, as for a release (kanon.release_planner_settings: each evaluation query is
  long and costly, and JIT-compiling it took longer than running it); and work_mem 256MB, so that
  grouping a batch of nodes (a few million class rows) hashes in memory rather than spilling to
  disk (Adult's largest batch, 5.9 million class rows in 847,000 groups, spilled at 64MB: 2.43 s
  against 2.08 s). Both `set local`: gone when the transaction ends.
-#}
{% macro _records_search_settings() %}
  {{ return(adapter.dispatch('_records_search_settings', 'kanon')()) }}
{% endmacro %}

{% macro default___records_search_settings() %}
  {{ return('') }}
{% endmacro %}

{% macro postgres___records_search_settings() %}
  {{ return("set local jit = off; set local work_mem = '256MB'") }}
{% endmacro %}
