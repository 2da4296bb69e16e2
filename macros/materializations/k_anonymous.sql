{#-
  materialized='k_anonymous': a table that is only ever published when every row describes at
  least k people, with every decision on the record. It keeps the step order of dbt's own table
  materialization (dbt-adapters' table.sql) and adds its checks before the swap. Inside one
  transaction it

    1. stages the model's SQL in a temporary table (make_temp_relation: private to this session,
       named so that it can be no relation of the user's; the model's sql_header applies). The
       release kind, from the model's config at parse time (_release_kind), says what it holds:
       a release macro's long form (published rows, groups and facts, marked by _kanon_row), or
       a hand-written model's published rows themselves,
    2. reads the release's facts from the staging table in one query and runs the gate's named
       checks, in the order the kind's descriptor lists them (macros/core/gate/_release_checks.sql
       says which checks there are and where each lives). The first failing check refuses: a
       REFUSED release naming it is recorded and committed, the run fails, nothing is published,
    3. builds the new release from the staging table (contracts apply here) and appends its
       groups, and any hierarchy not yet snapshotted, to the audit trail,
    4. swaps the new release in, drops the old one (dbt drops its backup after the commit, where
       a crash can leave it behind) and creates the configured indexes,
    5. records the release's summary row (after the swap, so that its timestamp orders releases
       of one report as they went live), runs the post-hooks, applies grants, drops the staging
       table, and commits.

  A crash before the commit leaves the old release and no new audit rows; after it, the new
  release and all of them, and no backup table. Spark has no transaction: there the same steps
  run one statement at a time, a release goes live by replacing a view over a new version table,
  and its summary row is written PENDING before that swap and RELEASED after it (ADR 10). Nothing
  holding thin cells is ever created in the mart's schema.

  config:
    k                (required) whole number from 2 to 2147483647
    count_column     the column holding each row's people count (default 'people')
    max_suppression  refuse a release_counts release that suppresses more than this share of
                     the people (0 to 1; default none: any share, with a warning when nothing
                     is published); for release_records, the suppression budget its search
                     stays within (default 0)
    allow_empty_input  publish a release that read no input rows (default false: refused,
                     check input_empty)
    allow_empty_output publish a release that shows nothing of its input (default false: output_empty)
    max_input_shrink refuse a release whose input rows fell by more than this share since the
                     report's previous release (0 to 1; default 0.5; 1 allows any fall)
-#}
{% materialization k_anonymous, default %}
  {%- set k = config.get('k') -%}
  {%- set count_column = config.get('count_column', 'people') -%}
  {%- set max_suppression = config.get('max_suppression') -%}
  {%- do kanon._check_release_config(k, count_column, max_suppression) -%}

  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set intermediate_relation = make_intermediate_relation(target_relation) -%}
  {%- set preexisting_intermediate_relation = load_cached_relation(intermediate_relation) -%}
  {%- set backup_relation_type = 'table' if existing_relation is none else existing_relation.type -%}
  {%- set backup_relation = make_backup_relation(target_relation, backup_relation_type) -%}
  {%- set preexisting_backup_relation = load_cached_relation(backup_relation) -%}
  {#- Temporary, with a time-stamped name: visible to this session only, gone with it, not
      written to the warehouse's log, and never the name of a table kanon did not create. -#}
  {%- set staging_relation = kanon._staging_relation(make_temp_relation(target_relation, '__kanon_staging')) -%}
  {%- set grant_config = config.get('grants') -%}

  {%- set audit_tables = kanon._audit_relations() -%}
  {%- set audit = {} -%}
  {%- for relation, which in audit_tables -%}{%- do audit.update({which: relation}) -%}{%- endfor -%}
  {%- set release = {'invocation_id': invocation_id, 'report': model.name, 'report_unique_id': model.unique_id, 'k': k,
      'count_column': count_column} -%}

  -- drop dbt's own intermediate and backup relations if a crashed run left them
  {{ drop_relation_if_exists(preexisting_intermediate_relation) }}
  {{ drop_relation_if_exists(preexisting_backup_relation) }}
  {%- do kanon._ensure_audit_trail(audit_tables) -%}
  {%- do kanon._warn_dependent_views(existing_relation) -%}
  {%- do kanon._warn_grants_unsupported(grant_config) -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- `BEGIN` happens here:
  {{ run_hooks(pre_hooks, inside_transaction=True) }}
  {%- do kanon._begin_release_transaction() -%}

  -- 1. stage (a release macro's long form, from inside the published rows its SQL returns elsewhere)
  {% call statement('kanon_staging') -%}
    {{ kanon._create_staging_table_as(staging_relation, kanon._release_staged_sql(sql)) }}
  {%- endcall %}

  {#- The release kind, from config at parse time (release macros set it); what was staged must match it. -#}
  {%- set staged = adapter.get_columns_in_relation(staging_relation) -%}
  {%- set kind = kanon._release_kind(config.get('kanon_release_kind') or 'hand_written',
      staged | map(attribute='name') | list, max_suppression) -%}
  {%- set long_form = kind.long_form -%}
  {%- set published = kanon._release_published(kind, staged, staging_relation) -%}
  {#- a record release has no count column: its gate recounts the people of every class -#}
  {%- if not kind.count -%}
    {%- set count_column = none -%}
    {%- do release.update({'count_column': none}) -%}
  {%- endif -%}

  -- 2. check: nothing below k is published, and the release is one the config accepts
  {%- set facts = kanon._release_facts(staging_relation, staged, count_column, k, kind, audit.releases) -%}
  {%- do kanon._release_facts_with_learned(kind, facts) -%}
  {%- do facts.update({'suppression_rate': kanon._release_suppression_rate(kind, facts)}) -%}
  {%- do release.update({'release_kind': kind.name, 'release_plan': facts.release_plan, 'input_rows': facts.input_rows,
      'policy_fingerprint': facts.policy_fingerprint if long_form
      else kanon._hand_written_policy_fingerprint(sql, k, count_column, max_suppression)}) -%}
  {%- set failed = kanon._release_failed_check(kanon._release_checks({'kind': kind, 'facts': facts,
      'staging': staging_relation, 'k': k, 'max_suppression': max_suppression, 'count_column': count_column})) -%}
  {%- if failed is not none -%}
    {%- do kanon._refuse_release(staging_relation, audit.releases, release, failed, target_relation) -%}
  {%- endif -%}
  {%- do kanon._warn_release_facts(facts, staging_relation, kind) -%}

  -- 3. build the new release and the cell decisions of the audit
  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, intermediate_relation,
        published.select) }}
  {%- endcall %}
  {%- do kanon._audit_append(kanon._audit_insert_groups(audit.groups, audit.releases, staging_relation, release,
      long_form, facts.count_column, published.names)) -%}
  {#- one statement per hierarchy: Spark runs one statement per call -#}
  {%- for dimension in (fromjson(facts.release_plan).dimensions if facts.release_plan else [])
        if dimension.hierarchy is not none %}
  {% call statement('kanon_audit_hierarchies') -%}
    {{ kanon._audit_insert_hierarchy(audit.hierarchies, dimension) }}
  {%- endcall %}
  {%- endfor %}

  {#- Without a transaction (Spark) the summary row is written twice: PENDING before the swap,
      RELEASED after it, so that a crash in between leaves the attempt on the record (ADR 10). -#}
  {%- if not kanon._release_has_transaction() %}
  {%- do kanon._audit_write_bound(kanon._audit_insert_release(audit.releases, release, facts, 'PENDING'),
      [facts.release_plan]) -%}
  {%- endif %}

  -- 4. swap, drop the old release, index the new one
  {% if existing_relation is not none %}
    {% set existing_relation = load_cached_relation(existing_relation) %}
  {% endif %}
  {%- do kanon._swap_release(existing_relation, backup_relation, intermediate_relation, target_relation) -%}
  {#- On the swapped-in table, not before the rename as dbt's table does: DuckDB cannot rename a
      table that has an index ("entries that depend on it"). Still inside the transaction. -#}
  {% do create_indexes(target_relation) %}

  -- 5. the release's summary row, post-hooks, grants, clean-up; then one commit
  {%- do kanon._audit_write_bound(kanon._audit_insert_release(audit.releases, release, facts), [facts.release_plan]) -%}

  {{ run_hooks(post_hooks, inside_transaction=True) }}

  {% set should_revoke = should_revoke(existing_relation, full_refresh_mode=True) %}
  {% do kanon._apply_release_grants(target_relation, grant_config, should_revoke) %}
  {% do persist_docs(target_relation, model) %}
  {%- do kanon._noise_publish_reader_note(target_relation, facts.release_plan, model.description) -%}

  {%- do kanon._drop_staging(staging_relation) -%}

  -- `COMMIT` happens here: the new release, its grants and its audit rows land together
  {{ adapter.commit() }}

  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
