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

{#- Also the planner settings of release_planner_settings, for this transaction only. -#}
{% macro postgres___begin_release_transaction() %}
  {% call statement('kanon_begin') -%}
    begin
  {%- endcall %}
  {% call statement('kanon_planner_settings') -%}
    {{ kanon.release_planner_settings(local=true) }}
  {%- endcall %}
{% endmacro %}

{#- Whether a release's writes commit together (a transaction), or land one statement at a time
    (Spark, where the materialization orders them instead: ADR 10). -#}
{% macro _release_has_transaction() %}
  {{ return(adapter.dispatch('_release_has_transaction', 'kanon')()) }}
{% endmacro %}

{% macro default___release_has_transaction() %}
  {{ return(true) }}
{% endmacro %}

{% macro spark___release_has_transaction() %}
  {{ return(false) }}
{% endmacro %}
