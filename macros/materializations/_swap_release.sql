{#- Puts the new release in place of the old one, inside the release's transaction, and drops the
    old one there too: dbt's table materialization drops its backup after the commit, where a
    crash leaves it behind until the next run. -#}
{% macro _swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) %}
  {{ return(adapter.dispatch('_swap_release', 'kanon')(existing_relation, backup_relation, intermediate_relation, target_relation)) }}
{% endmacro %}

{#- dbt's order: old release renamed to the backup, new one renamed in, backup dropped. -#}
{% macro default___swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) %}
  {%- if existing_relation is not none -%}
    {%- do adapter.rename_relation(existing_relation, backup_relation) -%}
  {%- endif -%}
  {%- do adapter.rename_relation(intermediate_relation, target_relation) -%}
  {%- do adapter.drop_relation(backup_relation) if existing_relation is not none -%}
{% endmacro %}

{#- DuckDB cannot rename a table that has an index ("entries that depend on it"), so the old
    release is dropped rather than renamed first; its DDL is transactional, so readers still see
    the old release until the commit. -#}
{% macro duckdb___swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) %}
  {%- if existing_relation is not none -%}
    {%- do adapter.drop_relation(existing_relation) -%}
  {%- endif -%}
  {%- do adapter.rename_relation(intermediate_relation, target_relation) -%}
{% endmacro %}
