{#-
  materialized='k_anonymous': a table that is only ever published when every row describes at
  least k people. Starts from dbt's own table materialization: the model is built into an
  intermediate relation, then checked, and only then swapped in, inside one transaction.

  config:
    k             (required) whole number >= 2
    count_column  the column holding each row's people count (default 'people')
  On a violation (a count below k, or NULL) the intermediate relation is dropped, the previous
  release stays exactly as it was, and the run fails naming the model, k and the number of
  offending rows, never their values.
-#}
{% materialization k_anonymous, default %}
  {%- set k = config.get('k') -%}
  {%- set count_column = config.get('count_column', 'people') -%}
  {%- do kanon._check_release_config(k, count_column) -%}

  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
  {%- set preexisting_intermediate_relation = load_cached_relation(intermediate_relation) -%}
  {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
  {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
  {%- set preexisting_backup_relation = load_cached_relation(backup_relation) -%}
  {%- set grant_config = config.get('grants') -%}

  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- `BEGIN` happens here:
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, intermediate_relation, sql) }}
  {%- endcall %}

  {#- The gate: nothing below k is published. -#}
  {%- set offending = kanon._count_below_k(intermediate_relation, count_column, k) -%}
  {%- if offending != 0 -%}
    {{ adapter.drop_relation(intermediate_relation) }}
    {{ adapter.commit() }}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to publish " ~ model.unique_id ~ ": " ~ offending ~ " row(s) have "
        ~ count_column ~ " below k=" ~ k ~ " or NULL. Nothing was published; the previous release of "
        ~ target_relation ~ " is unchanged.") }}
  {%- endif -%}

  {% if existing_relation is not none %}
    {% set existing_relation = load_cached_relation(existing_relation) %}
    {% if existing_relation is not none %}
      {{ adapter.rename_relation(existing_relation, backup_relation) }}
    {% endif %}
  {% endif %}
  {{ adapter.rename_relation(intermediate_relation, target_relation) }}

  {{ run_hooks(post_hooks, inside_transaction=True) }}

  {% set should_revoke = should_revoke(existing_relation, full_refresh_mode=True) %}
  {% do apply_grants(target_relation, grant_config, should_revoke=should_revoke) %}
  {% do persist_docs(target_relation, model) %}

  -- `COMMIT` happens here: the new release and its grants land together
  {{ adapter.commit() }}

  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
