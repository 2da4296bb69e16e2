{#-
  The k_anonymous materialization's writes to the audit trail. All are plain inserts (the trail
  is append-only), guarded so that re-running the same invocation never duplicates a release.
-#}

{#- release_counts stamps its policy fingerprint into the SQL; a hand-written model's policy is its SQL and k. -#}
{% macro _sql_policy_fingerprint(sql, k) %}
  {%- set found = modules.re.search('kanon_policy_fingerprint: ([0-9a-f]+)', sql) -%}
  {{ return(found.group(1) if found else local_md5('k=' ~ k ~ '\n' ~ sql)) }}
{% endmacro %}

{#- Creates the audit schema and relations when a release runs before the audit models were
    built (`dbt run -s my_mart` on a fresh warehouse). `dbt build` builds them first anyway:
    release_counts refs them. -#}
{% macro _ensure_audit_trail(audit_cells, audit_releases) %}
  {%- do adapter.create_schema(audit_cells) -%}
  {%- for relation, shell in [(audit_cells, kanon._audit_shell('cells')), (audit_releases, kanon._audit_shell('releases'))] -%}
    {%- if load_cached_relation(relation) is none and adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}
      {% call statement('kanon_audit_shell') -%}
        create table if not exists {{ relation }} as {{ shell }}
      {%- endcall %}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{%- macro _audit_release_literals(release) -%}
  '{{ release.invocation_id }}',
  cast('{{ release.released_at }}' as {{ dbt.type_timestamp() }}),
  '{{ release.report | replace("'", "''") }}',
  '{{ release.report_unique_id | replace("'", "''") }}',
  {{ release.k }},
  '{{ release.policy_fingerprint }}'
{%- endmacro -%}

{#- What a cell row says of its release: the key of the release's row in kanon_audit_releases. -#}
{%- macro _audit_release_key_literals(release) -%}
  '{{ release.invocation_id }}',
  '{{ release.report_unique_id | replace("'", "''") }}'
{%- endmacro -%}

{#- Guards every insert of a release on its summary row (the small table, written last in the
    same transaction): a release whose summary is recorded has all of its rows. -#}
{%- macro _audit_not_yet_recorded(audit_releases, release) -%}
  not exists (
    select 1 from {{ audit_releases }} as recorded
    where recorded.invocation_id = '{{ release.invocation_id }}'
      and recorded.report_unique_id = '{{ release.report_unique_id | replace("'", "''") }}'
  )
{%- endmacro -%}

{% macro _audit_insert_refused(audit_releases, release, reason) %}
  insert into {{ audit_releases }} {{ kanon._audit_columns('releases', through='reason') }}
  select
    {{ kanon._audit_release_literals(release) }},
    '{{ release.count_column | replace("'", "''") }}',
    'REFUSED',
    '{{ reason | replace("'", "''") }}'
  where {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
{% endmacro %}

{% macro _audit_insert_release(audit_cells, audit_releases, staging, release, long_form, count_column, published_columns) %}
  {%- set count = adapter.quote(count_column) -%}
  {%- if long_form %}
  insert into {{ audit_cells }} {{ kanon._audit_columns('cells') }}
  select
    {{ kanon._audit_release_key_literals(release) }},
    _kanon_cell_labels, _kanon_people, _kanon_decision, _kanon_ladder_step,
    _kanon_released_labels, _kanon_released_levels, _kanon_released_people
  from {{ staging }}
  where _kanon_row = 'cell' and {{ kanon._audit_not_yet_recorded(audit_releases, release) }};

  insert into {{ audit_releases }} {{ kanon._audit_columns('releases') }}
  select
    {{ kanon._audit_release_literals(release) }},
    '{{ release.count_column | replace("'", "''") }}',
    'RELEASED', cast(null as {{ dbt.type_string() }}),
    cells_in, cells_passed, cells_generalized, cells_suppressed, rows_released, people_suppressed,
    case when cells_in > 0 then cast(cells_suppressed as {{ dbt.type_numeric() }}) / cells_in else 0 end
  from (
    select
      coalesce(sum(case when _kanon_row = 'cell' then 1 else 0 end), 0) as cells_in,
      coalesce(sum(case when _kanon_decision = 'PASS' then 1 else 0 end), 0) as cells_passed,
      coalesce(sum(case when _kanon_decision = 'GENERALIZE' then 1 else 0 end), 0) as cells_generalized,
      coalesce(sum(case when _kanon_decision = 'SUPPRESS' then 1 else 0 end), 0) as cells_suppressed,
      coalesce(sum(case when _kanon_row = 'release' then 1 else 0 end), 0) as rows_released,
      coalesce(max(case when _kanon_row = 'suppressed' then _kanon_people end), 0) as people_suppressed
    from {{ staging }}
  ) as counts
  where {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
  {%- else %}
  {#- A hand-written aggregate: every published row is a cell released as it is. -#}
  {%- set labels = [] -%}
  {%- for column in published_columns if column != count -%}
    {%- do labels.append((column.strip('"`'), column, true)) -%}
  {%- endfor %}
  insert into {{ audit_cells }} {{ kanon._audit_columns('cells') }}
  select
    {{ kanon._audit_release_key_literals(release) }},
    {{ kanon._json_object(labels) }}, {{ count }}, 'PASS', 0,
    {{ kanon._json_object(labels) }}, cast(null as {{ dbt.type_string() }}), {{ count }}
  from {{ staging }}
  where {{ kanon._audit_not_yet_recorded(audit_releases, release) }};

  insert into {{ audit_releases }} {{ kanon._audit_columns('releases') }}
  select
    {{ kanon._audit_release_literals(release) }},
    '{{ release.count_column | replace("'", "''") }}',
    'RELEASED', cast(null as {{ dbt.type_string() }}),
    count(*), count(*), 0, 0, count(*), 0, 0
  from {{ staging }}
  having {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
  {%- endif %}
{% endmacro %}

