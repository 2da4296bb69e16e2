{#- Puts the new release in place of the old one, inside the release's transaction, and drops the
    old one there too: dbt's table materialization drops its backup after the commit, where a
    crash leaves it behind until the next run. -#}
{% macro _swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) %}
  {{ return(adapter.dispatch('_swap_release', 'kanon')(existing_relation, backup_relation, intermediate_relation,
                                                       target_relation)) }}
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

{#- Spark has no transactions, and renaming the old table aside and the new one in leaves a
    moment with no table (or, with insert overwrite, a partly written one). So on Spark the
    model's relation is a view over an immutable version table (<model>__kanon_v<time>): the
    checked release is renamed to its version, and one `create or replace view` (a single
    metastore operation) moves readers from the old version to the new, whole. Then the older
    versions are dropped; a crash can leave one behind, which the next release drops. A table
    under the model's name (released before without kanon's view) cannot be replaced by a view
    in one step: it is dropped first, with a warning, and readers see no relation meanwhile. -#}
{% macro spark___swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) %}
  {%- set prefix = target_relation.identifier ~ '__kanon_v' -%}
  {%- set stamp = modules.datetime.datetime.utcnow().strftime('%Y%m%d%H%M%S%f') -%}
  {%- set version = target_relation.incorporate(path={'identifier': prefix ~ stamp}, type='table') -%}
  {%- do adapter.rename_relation(intermediate_relation, version) -%}
  {%- if existing_relation is not none and existing_relation.type != 'view' -%}
    {{ log("kanon: WARNING: " ~ target_relation ~ " was a table; replaced by kanon's view over its release versions"
        ~ " (readers saw no relation between the drop and the view, this once)", info=true) }}
    {%- do adapter.drop_relation(existing_relation) -%}
  {%- endif -%}
  {% call statement('kanon_release_view') -%}
    create or replace view {{ target_relation }} as select * from {{ version }}
  {%- endcall %}
  {%- for row in run_query('show tables in ' ~ target_relation.without_identifier()).rows
        if not row[2] and (row[1] | lower).startswith(prefix | lower)
           and (row[1] | lower) != (version.identifier | lower) -%}
    {% call statement('kanon_drop_old_version') -%}
      drop table if exists {{ target_relation.incorporate(path={'identifier': row[1]}, type='table') }}
    {%- endcall %}
  {%- endfor -%}
{% endmacro %}
