{#-
  Settings the lattice search runs its queries with ({name: value}; none where none are needed),
  set for the search alone: _records_search_apply_settings sets them for the transaction and
  returns what sets back the values they had, which _records_search_restore runs when the search
  ends, so that the rest of the release plans as it would have.

  Postgres: jit off, as for a release (kanon.release_planner_settings: each evaluation query is
  long and costly, and JIT-compiling it took longer than running it); work_mem 256MB, so that
  grouping a batch of nodes (a few million class rows) hashes in memory rather than spilling to
  disk (Adult's largest batch, 5.9 million class rows in 847,000 groups, spilled at 64MB: 2.43 s
  against 2.08 s). Sorting off (a cost, not a ban: a sort with no other way still runs): the
  planner overestimates a batch's classes tenfold (3.9 million for Adult's 298,000 at 424 nodes),
  so that the groups of a full evaluation, which carry every level's loss of a class, seem too
  large to hash, and it sorted them instead, 2 GB on disk: 34.8 s against 9.1 s hashed in 164 MB
  (a hash that does outgrow its memory spills in parts). Two parallel workers per query, for the
  evaluations: a batch's nodes in parts, each part whole in one process (_records_evaluate_parts;
  the scratch tables are unlogged tables, which workers may read, where a temporary table is read
  by the leader alone: _scratch_name), with starting a worker costed low (parallel_setup_cost 100
  against the default 1000: a batch takes seconds, a worker milliseconds to start) and the few
  rows a part returns too. Two: the leader runs a part too, and what the server allows beyond
  stays the host's.
-#}
{% macro _records_search_settings() %}
  {{ return(adapter.dispatch('_records_search_settings', 'kanon')()) }}
{% endmacro %}

{% macro default___records_search_settings() %}
  {{ return({}) }}
{% endmacro %}

{% macro postgres___records_search_settings() %}
  {{ return({'jit': 'off', 'work_mem': '256MB', 'enable_sort': 'off', 'max_parallel_workers_per_gather': '2',
      'parallel_setup_cost': '100', 'parallel_tuple_cost': '0.01'}) }}
{% endmacro %}

{#- Sets the search's settings for the transaction (Postgres's set_config: the only warehouse with
    any); returns the SQL that sets them back ('' when there are none). -#}
{% macro _records_search_apply_settings() %}
  {%- set wanted = kanon._records_search_settings() -%}
  {%- if not wanted -%}{{ return('') }}{%- endif -%}
  {%- set names = wanted.keys() | list -%}
  {%- set reads, sets = [], [] -%}
  {%- for name in names -%}
    {%- do reads.append("current_setting('" ~ name ~ "')") -%}
    {%- do sets.append("set_config('" ~ name ~ "', '" ~ wanted[name] ~ "', true)") -%}
  {%- endfor -%}
  {%- set before = run_query('select ' ~ (reads | join(', '))).rows[0] -%}
  {%- set restores = [] -%}
  {%- for name in names -%}
    {%- do restores.append("set_config('" ~ name ~ "', '" ~ (before[loop.index0] | replace("'", "''")) ~ "', true)") -%}
  {%- endfor -%}
  {%- do run_query('select ' ~ (sets | join(', '))) -%}
  {{ return('select ' ~ (restores | join(', '))) }}
{% endmacro %}

{#- Sets back what _records_search_apply_settings changed (`restore`: the SQL it returned). -#}
{% macro _records_search_restore(restore) %}
  {%- if restore -%}{%- do run_query(restore) -%}{%- endif -%}
{% endmacro %}
