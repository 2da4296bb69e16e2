{#-
  The k_anonymous materialization's writes to the audit trail. All are plain inserts (the trail
  is append-only), guarded so that re-running the same invocation never duplicates a release.
-#}

{#- A hand-written model's policy is its SQL and its gate's config. (A release_counts release
    carries its fingerprint in its long form, as its 'policy' row.) -#}
{% macro _hand_written_policy_fingerprint(sql, k, count_column, max_suppression) %}
  {{ return(local_md5('k=' ~ k ~ '\ncount_column=' ~ count_column ~ '\nmax_suppression=' ~ max_suppression
      ~ '\n' ~ sql)) }}
{% endmacro %}

{#- released_at is the warehouse's clock when the summary row is written (after the swap, in the
    release's transaction), in UTC: two releases of one report in the same second, from two
    invocations, are still told apart and ordered as they went live. -#}
{%- macro _audit_release_literals(release) -%}
  '{{ release.invocation_id }}',
  {{ kanon._audit_clock() }},
  '{{ release.report | replace("'", "''") }}',
  '{{ release.report_unique_id | replace("'", "''") }}',
  {{ release.k if release.k is not none else 'cast(null as ' ~ dbt.type_int() ~ ')' }},
  {{ kanon._sql_text(release.policy_fingerprint) }}
{%- endmacro -%}

{#- What a cell row says of its release: the key of the release's row in kanon_audit_releases. -#}
{%- macro _audit_release_key_literals(release) -%}
  '{{ release.invocation_id }}',
  '{{ release.report_unique_id | replace("'", "''") }}'
{%- endmacro -%}

{#- Guards every insert of a release on its summary row (the small table, written last in the
    same transaction): a release whose summary is recorded has all of its rows. A PENDING row
    (written before the swap where there is no transaction, ADR 10) is not a summary. -#}
{%- macro _audit_not_yet_recorded(audit_releases, release, any_row=false) -%}
  not exists (
    select 1 from {{ audit_releases }} as recorded
    where recorded.invocation_id = '{{ release.invocation_id }}'
      and recorded.report_unique_id = '{{ release.report_unique_id | replace("'", "''") }}'
      {%- if not any_row %}
      and recorded.status <> 'PENDING'
      {%- endif %}
  )
{%- endmacro -%}

{#- A REFUSED release: the gate's failing check and why (counts only), and the plan it was refused
    with (bound where the marker is: run it with _audit_write_bound(sql, [release.release_plan])).
    any_row: also not when a PENDING row is there (a Spark release that may have gone live). -#}
{% macro _audit_insert_refused(audit_releases, release, check, reason, any_row=false) %}
  {%- set input_rows = release.get('input_rows') %}
  insert into {{ audit_releases }} {{ kanon._audit_columns('releases', through='reason',
      also=['failed_check', 'release_kind', 'release_plan', 'input_rows']) }}
  select
    {{ kanon._audit_release_literals(release) }},
    {{ kanon._sql_text(release.count_column) }},
    'REFUSED',
    {{ kanon._sql_text(reason) }},
    {{ kanon._sql_text(check) }},
    {{ kanon._sql_text(release.release_kind) }},
    {{ kanon._audit_bound_marker() }},
    cast({{ input_rows if input_rows is not none else 'null' }} as {{ dbt.type_bigint() }})
  where {{ kanon._audit_not_yet_recorded(audit_releases, release, any_row) }}
{% endmacro %}

{#- The group rows of a release: from a long form, every row with a decision (its published
    rows and the groups it suppressed); from a hand-written aggregate, every published row, a
    group released as it is (PASS at step 0, its labels the row's other columns). -#}
{% macro _audit_insert_groups(audit_groups, audit_releases, staging, release, long_form, count_name, published_names) %}
  insert into {{ audit_groups }} {{ kanon._audit_columns('groups') }}
  {%- if long_form %}
  select
    {{ kanon._audit_release_key_literals(release) }}
    {%- for name, type in kanon._audit_group_fields() %},
    _kanon_{{ name }}
    {%- endfor %}
  from {{ staging }}
  where _kanon_decision is not null and {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
  {%- else %}
  {%- set labels = [] -%}
  {%- for name in published_names if name != count_name -%}
    {%- do labels.append((name, kanon._quote(name), true)) -%}
  {%- endfor %}
  select
    {{ kanon._audit_release_key_literals(release) }},
    'PASS', 0, {{ kanon._json_object(labels) }}, cast(null as {{ dbt.type_string() }}), {{ kanon._quote(count_name) }},
    {{ kanon._quote(count_name) }}, cast(null as {{ dbt.type_bigint() }})
  from {{ staging }}
  where {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
  {%- endif %}
{% endmacro %}

{#- A hierarchy of a release (a dimension of its plan, with a hierarchy) into the trail's
    snapshots, once per content hash: a hash already there is skipped. Concurrent first releases
    of one hierarchy may both write it; readers take distinct rows. -#}
{% macro _audit_insert_hierarchy(audit_hierarchies, d) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  insert into {{ audit_hierarchies }} {{ kanon._audit_columns('hierarchies') }}
  select
    '{{ d.hierarchy }}',
    _k_levels._k_leaf,
    _k_levels._k_level,
    _k_levels._k_label
  from (
    {%- for column in d.level_columns[1:] %}
    {% if not loop.first %}union all {% endif %}select cast({{ q(d.level_columns[0]) }} as {{ string }}) as _k_leaf, {{
      loop.index }} as _k_level, cast({{ q(column) }} as {{ string }}) as _k_label from {{ d.relation }}
    {%- endfor %}
  ) as _k_levels
  where not exists (select 1 from {{ audit_hierarchies }} as known where known.content_hash = '{{ d.hierarchy }}')
{% endmacro %}

{#- The summary row of a published release: literals from the facts the gate read in its one
    scan of the staging table (no second scan), the plan bound where the marker is (run it with
    _audit_write_bound(sql, [facts.release_plan])). status 'PENDING': the same row, written before
    the release goes live where no transaction holds the swap and the trail together (Spark). -#}
{% macro _audit_insert_release(audit_releases, release, facts, status='RELEASED') %}
  {%- if status not in ['RELEASED', 'PENDING'] -%}
    {{ exceptions.raise_compiler_error("kanon: a release's summary row is RELEASED or PENDING, not " ~ status) }}
  {%- endif -%}
  {%- set bigint = dbt.type_bigint() -%}
  insert into {{ audit_releases }} {{ kanon._audit_columns('releases') }}
  select
    {{ kanon._audit_release_literals(release) }},
    {{ kanon._sql_text(release.count_column) }},
    '{{ status }}', cast(null as {{ dbt.type_string() }})
    {%- for fact in ['cells_in', 'cells_passed', 'cells_generalized', 'cells_suppressed', 'rows_published',
                     'people_suppressed'] %},
    cast({{ facts[fact] }} as {{ bigint }})
    {%- endfor %},
    cast({{ facts.suppression_rate }} as {{ dbt.type_numeric() }}),
    cast({{ facts.people_in if facts.people_in is not none else 'null' }} as {{ bigint }}),
    cast({{ facts.events_null_unit }} as {{ bigint }}),
    cast(null as {{ dbt.type_string() }}),
    '{{ release.release_kind }}',
    {{ kanon._audit_bound_marker() }}
    {%- for fact in ['rows_compared', 'rows_changed_small', 'rows_held', 'rows_appeared', 'rows_disappeared',
                     'input_rows'] %},
    cast({{ facts[fact] if facts[fact] is not none else 'null' }} as {{ bigint }})
    {%- endfor %},
    {{ kanon._sql_text(facts.key_fingerprint) }},
    {{ kanon._audit_ledger_literals(facts) }},
    {{ kanon._sql_text(tojson(facts.kind_facts, sort_keys=true) if facts.get('kind_facts') else none) }}
  where {{ kanon._audit_not_yet_recorded(audit_releases, release) }}
{% endmacro %}



{#- The ledger's columns of a release's summary row (_audit_column_types('releases')), as
    literals: from the plan's noise.spent for a dp release (what it spent, fixed before it ran)
    and the facts it stated; NULLs for any other release. -#}
{% macro _audit_ledger_literals(facts) %}
  {%- set string, float, bigint = dbt.type_string(), kanon._records_double(), dbt.type_bigint() -%}
  {%- set plan = fromjson(facts.release_plan) if facts.release_plan else {} -%}
  {%- set noise = (plan.get('noise') or {}) if plan is mapping else {} -%}
  {%- set spent = noise.get('spent') if noise.get('mode') == 'dp' else none -%}
  {%- if spent is none -%}
    {%- set literals = [] -%}
    {%- for type in [string, string, float, float, float, bigint, bigint] -%}
      {%- do literals.append('cast(null as ' ~ type ~ ')') -%}
    {%- endfor -%}
    {{ return(literals | join(', ')) }}
  {%- endif -%}
  {%- set number = kanon._audit_ledger_number -%}
  {{ return([
      kanon._sql_text(spent.source), kanon._sql_text(facts.privacy_unit),
      number(spent.get('epsilon'), float), number(spent.get('rho'), float), number(spent.delta, float),
      number(facts.get('contributions_dropped'), bigint), number(facts.get('events_outside_cells'), bigint)
    ] | join(', ')) }}
{% endmacro %}

{#- A number as a typed literal, NULL for none; floats written with repr's precision. -#}
{% macro _audit_ledger_number(value, type) %}
  {{ return('cast(' ~ (value if value is not none else 'null') ~ ' as ' ~ type ~ ')') }}
{% endmacro %}

{#- `<alias>` is the report's previous release: its last RELEASED row on the trail (by
    released_at), this invocation's excluded. The condition of a where clause over
    `audit_releases as <alias>`; read by the gate (input and key against the previous release)
    and by a count release's comparison (_counts_difference_ctes). -#}
{%- macro _audit_is_previous_release(alias, audit_releases) -%}
  {{ kanon._audit_released_before(alias) }}
  and {{ alias }}.released_at = (
    select max(_k_latest.released_at) from {{ audit_releases }} as _k_latest
    where {{ kanon._audit_released_before('_k_latest') }})
{%- endmacro -%}

{#- `<alias>` is a RELEASED row of this report from another invocation. -#}
{%- macro _audit_released_before(alias) -%}
  {{ alias }}.report_unique_id = '{{ model.unique_id | replace("'", "''") }}' and {{ alias }}.status = 'RELEASED'
  and {{ alias }}.invocation_id <> '{{ invocation_id }}'
{%- endmacro -%}
