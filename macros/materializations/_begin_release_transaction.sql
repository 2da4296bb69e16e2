{#-
  Opens the transaction that makes a release atomic: staging, gate, new release, audit rows and
  swap commit together or not at all.

  dbt's own transaction handling is enough on DuckDB. On Postgres it is not: dbt-postgres leaves
  BEGIN to psycopg2 but sends COMMIT as SQL text, after which psycopg2 still believes a
  transaction is open and sends no BEGIN, so every later statement on that connection commits
  on its own (seen with dbt-postgres 1.11: a SIGKILL mid-release left the new table behind). An
  explicit BEGIN opens a real transaction block either way; when psycopg2 had already opened one,
  Postgres only warns.
-#}
{% macro _begin_release_transaction() %}
  {{ return(adapter.dispatch('_begin_release_transaction', 'kanon')()) }}
{% endmacro %}

{% macro default___begin_release_transaction() %}
{% endmacro %}

{#- Also: the release joins CTEs whose sizes Postgres estimates at a row or two after a filter,
    and then picks nested loops over hundreds of thousands of rows (minutes instead of seconds
    at 1M events). Every join of the engine is an equality join that a hash join serves well,
    so nested loops are switched off for this transaction only. -#}
{% macro postgres___begin_release_transaction() %}
  {% call statement('kanon_begin') -%}
    begin
  {%- endcall %}
  {% call statement('kanon_no_nested_loops') -%}
    set local enable_nestloop = off
  {%- endcall %}
{% endmacro %}
