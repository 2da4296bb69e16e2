{#-
  materialized='k_anonymous': a table that is only ever published when every row describes at
  least k people, with every decision on the record. Starts from dbt's own table
  materialization; inside one transaction it

    1. builds the model into a temporary staging table, private to this session (a
       release_counts model's SQL carries the audit too, marked by _kanon_row; a hand-written
       one is the published rows themselves),
    2. checks that no row to publish has a count below k or NULL; if one does, it drops the
       staging table, records a REFUSED release, commits that record and fails,
    3. builds the new release from the staging table (contracts apply here), appends the cell
       decisions and a summary row to the audit trail, drops the staging table,
    4. swaps the new release in and applies grants, and commits.

  A crash before the commit leaves the old release and no new audit rows; after it, the new
  release and all of them. Nothing holding thin cells is ever created in the mart's schema.

  config:
    k             (required) whole number >= 2
    count_column  the column holding each row's people count (default 'people')
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

  {%- set audit_cells = kanon._audit_relation('kanon_audit_cells') -%}
  {%- set audit_releases = kanon._audit_relation('kanon_audit_releases') -%}
  {#- Temporary: visible to this session only, gone with it, and not written to the warehouse's log. -#}
  {%- set staging_relation = api.Relation.create(identifier=this.identifier ~ '__kanon_staging', type='table') -%}
  {%- set release = {
      'invocation_id': invocation_id,
      'released_at': run_started_at.strftime('%Y-%m-%d %H:%M:%S'),
      'report': model.name,
      'report_unique_id': model.unique_id,
      'k': k,
      'count_column': count_column,
      'policy_fingerprint': kanon._sql_policy_fingerprint(sql, k),
  } -%}

  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}
  {%- do kanon._ensure_audit_trail(audit_cells, audit_releases) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- `BEGIN` happens here:
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {%- do kanon._begin_release_transaction() -%}
  {% call statement('kanon_staging') -%}
    drop table if exists {{ staging_relation }};
    create temporary table {{ staging_relation }} as {{ sql }}
  {%- endcall %}

  {#- A release_counts model carries its audit (column _kanon_row); a hand-written one does not. -#}
  {%- set staged_columns = run_query('select * from ' ~ staging_relation ~ ' where 1 = 0').column_names | list -%}
  {%- set long_form = '_kanon_row' in (staged_columns | map('lower') | list) -%}
  {%- set published_columns = [] -%}
  {%- for name in staged_columns if not (name | lower).startswith('_kanon_') -%}
    {%- do published_columns.append(adapter.quote(name)) -%}
  {%- endfor -%}
  {%- set published_filter = "where _kanon_row = 'release'" if long_form else '' -%}

  {#- The gate: nothing below k is published. -#}
  {%- set offending = kanon._count_below_k(staging_relation, count_column, k, published_filter, staged_columns) -%}
  {%- if offending != 0 -%}
    {%- set reason = offending ~ " row(s) have " ~ count_column ~ " below k=" ~ k ~ " or NULL" -%}
    {% call statement('kanon_refused') -%}
      drop table {{ staging_relation }};
      {{ kanon._audit_insert_refused(audit_releases, release, reason) }}
    {%- endcall %}
    {{ adapter.commit() }}
    {{ exceptions.raise_compiler_error(
        "kanon: refused to publish " ~ model.unique_id ~ ": " ~ reason
        ~ ". Nothing was published; the previous release of " ~ target_relation ~ " is unchanged.") }}
  {%- endif -%}

  {%- if long_form -%}
    {%- do kanon._warn_missing_labels(staging_relation) -%}
  {%- endif -%}

  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, intermediate_relation,
        'select ' ~ (published_columns | join(', ')) ~ ' from ' ~ staging_relation ~ ' ' ~ published_filter) }}
  {%- endcall %}

  {%- do kanon._audit_append(kanon._audit_insert_release(
      audit_cells, audit_releases, staging_relation, release, long_form, count_column, published_columns)) -%}
  {% call statement('kanon_drop_staging') -%}
    drop table {{ staging_relation }}
  {%- endcall %}

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

  -- `COMMIT` happens here: the new release, its grants and its audit rows land together
  {{ adapter.commit() }}

  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
