{#-
  The audit trail's tables and columns, defined once: the typed empty shells (built by the audit
  models, or by the k_anonymous materialization when a release runs before them) and the column
  lists the materialization inserts into all come from _audit_tables and _audit_column_types.
-#}

{#- The audit models and which shell each is: [(model name, which)]. -#}
{% macro _audit_tables() %}
  {{ return([('kanon_audit_groups', 'groups'), ('kanon_audit_hierarchies', 'hierarchies'),
             ('kanon_audit_releases', 'releases')]) }}
{% endmacro %}

{#- The audit models' names. -#}
{% macro _audit_model_names() %}
  {{ return(kanon._audit_tables() | map(attribute=0) | list) }}
{% endmacro %}
{% macro _audit_column_types(which) %}
  {%- set string = dbt.type_string() -%}
  {%- set bigint = dbt.type_bigint() -%}
  {%- if which == 'groups' -%}
    {#- One row per group a release formed and decided on: every published row (PASS at step 0,
        GENERALIZE at a later step, REMAINDER), and every group left thin and suppressed
        (SUPPRESS). Not one row per finest cell: kanon.audit_cell_fates derives any cell's fate
        from these, the release's plan and the hierarchy snapshots. Keyed by the release (see
        _audit_release_key_literals); what the release was is on its row in kanon_audit_releases.
        people_shown: the count the release published for the row, which differs from people
        only when on_small_change='hold' held it at the previous release's value (ADR 12);
        NULL for a suppressed group and in trails from before it. cell_key: in a noisy release
        (docs/reference/noise.md), the group's cell key, from which with people and the ptable
        (named by its hash in the release's plan) its published count is replayed. -#}
    {%- set columns = [
        ('invocation_id', string), ('report_unique_id', string),
        ('decision', string), ('ladder_step', dbt.type_int()),
        ('labels', string), ('levels', string), ('people', bigint), ('people_shown', bigint), ('cell_key', bigint)] -%}
  {%- elif which == 'hierarchies' -%}
    {#- The hierarchies releases were made with, one row per leaf and level above 0, once per
        content hash (the hash named in the release's plan): so that a past release can be
        replayed after its seed changed. -#}
    {%- set columns = [('content_hash', string), ('leaf', string), ('level', dbt.type_int()), ('label', string)] -%}
  {%- elif which == 'releases' -%}
    {#- The release's identity first (see _audit_release_literals). -#}
    {%- set columns = [
        ('invocation_id', string), ('released_at', dbt.type_timestamp()), ('report', string),
        ('report_unique_id', string), ('k', dbt.type_int()), ('policy_fingerprint', string)] -%}
    {%- do columns.extend([
        ('count_column', string), ('status', string), ('reason', string),
        ('cells_in', bigint), ('cells_passed', bigint), ('cells_generalized', bigint), ('cells_suppressed', bigint),
        ('rows_released', bigint), ('people_suppressed', bigint), ('suppression_rate', dbt.type_numeric()),
        ('people_in', bigint), ('events_null_unit', bigint), ('failed_check', string),
        ('release_kind', string), ('release_plan', string)]) -%}
    {#- A release compared with the report's previous one (ADR 12): rows (a record release's
        classes) matched by labels and levels, those changed by 1 to k-1 people, those held at
        the previous count (counts only), and rows new or gone; NULL for a hand-written release,
        and appeared and disappeared when there was no previous release. -#}
    {%- do columns.extend([
        ('rows_compared', bigint), ('rows_changed_small', bigint), ('rows_held', bigint),
        ('rows_appeared', bigint), ('rows_disappeared', bigint)]) -%}
    {#- The rows the release read (events with a person, records, or a hand-written model's own
        rows), compared by the gate with the previous release's (checks input_empty,
        input_shrink); and a record release's pseudonym key fingerprint (a keyed hash of a
        constant, never the key), compared with the previous release's. -#}
    {%- do columns.extend([('input_rows', bigint), ('key_fingerprint', string)]) -%}
    {#- The privacy budget's ledger (noise mode 'dp', docs/reference/noise.md): whose budget the
        release spent (its source and privacy unit) and how much (epsilon for the Laplace
        mechanism, rho for the Gaussian, delta for both); a dp release's contributions dropped by
        its bound on cells per person, and its events in no declared cell. NULL otherwise. -#}
    {%- do columns.extend([
        ('budget_source', string), ('budget_unit', string), ('epsilon_spent', kanon._records_double()),
        ('rho_spent', kanon._records_double()), ('delta_spent', kanon._records_double()),
        ('contributions_dropped', bigint), ('events_outside_cells', bigint)]) -%}
    {#- The facts the release's kind declares of its own (_release_own_facts: none of the
        columns above), as JSON {fact: {value, text}}, for its report section; NULL when it has
        none (counts, records, tables, hand-written). -#}
    {%- do columns.append(('kind_facts', string)) -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error("kanon: no audit table '" ~ which ~ "'") }}
  {%- endif -%}
  {{ return(columns) }}
{% endmacro %}

{#- The fields of a group row after its release's key: what the long form of a release carries
    as _kanon_<field> and the materialization copies into kanon_audit_groups. -#}
{% macro _audit_group_fields() %}
  {%- set fields = [] -%}
  {%- for name, type in kanon._audit_column_types('groups') if name not in ['invocation_id', 'report_unique_id'] -%}
    {%- do fields.append((name, type)) -%}
  {%- endfor -%}
  {{ return(fields) }}
{% endmacro %}

{#- A typed, empty shell of an audit table (see _audit_tables). -#}
{% macro _audit_shell(which) %}
select
  {%- for name, type in kanon._audit_column_types(which) %}
  cast(null as {{ type }}) as {{ name }}{% if not loop.last %},{% endif %}
  {%- endfor %}
where 1 = 0
{% endmacro %}

{#- "(col, col, ...)" of an audit table, up to and including `through` when given, then `also`. -#}
{% macro _audit_columns(which, through=none, also=[]) %}
  {%- set names = [] -%}
  {%- set ns = namespace(done=false) -%}
  {%- for name, type in kanon._audit_column_types(which) if not ns.done -%}
    {%- do names.append(name) -%}
    {%- if name == through -%}{%- set ns.done = true -%}{%- endif -%}
  {%- endfor -%}
  ({{ (names + also) | join(', ') }})
{%- endmacro %}

{#- The audit relations, wherever the project configured the audit models to live. -#}
{% macro _audit_relation(name) %}
  {%- set node = graph.nodes.get('model.kanon.' ~ name) -%}
  {%- if node is none -%}
    {{ exceptions.raise_compiler_error("kanon: the audit model " ~ name ~ " is missing or disabled; the k_anonymous"
        ~ " materialization records every release there") }}
  {%- endif -%}
  {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) }}
{% endmacro %}

{#- Every audit relation with which shell it is: [(relation, which)]. -#}
{% macro _audit_relations() %}
  {%- set relations = [] -%}
  {%- for name, which in kanon._audit_tables() -%}
    {%- do relations.append((kanon._audit_relation(name), which)) -%}
  {%- endfor -%}
  {{ return(relations) }}
{% endmacro %}
