{#-
  The audit trail's columns, defined once: the typed empty shells (built by the audit models,
  or by the k_anonymous materialization when a release runs before them) and the column lists
  the materialization inserts into both come from _audit_column_types.
-#}
{% macro _audit_column_types(which) %}
  {%- set string = dbt.type_string() -%}
  {%- set bigint = dbt.type_bigint() -%}
  {%- if which == 'cells' -%}
    {#- Keyed by the release (see _audit_release_key_literals); what the release was (when, which
        report, k, policy) is on its one row in kanon_audit_releases, not repeated on millions. -#}
    {%- set columns = [
        ('invocation_id', string), ('report_unique_id', string),
        ('cell_labels', string), ('people', bigint), ('decision', string), ('ladder_step', dbt.type_int()),
        ('released_labels', string), ('released_levels', string), ('released_people', bigint)] -%}
  {%- elif which == 'releases' -%}
    {#- The release's identity first (see _audit_release_literals). -#}
    {%- set columns = [
        ('invocation_id', string), ('released_at', dbt.type_timestamp()), ('report', string),
        ('report_unique_id', string), ('k', dbt.type_int()), ('policy_fingerprint', string)] -%}
    {%- do columns.extend([
        ('count_column', string), ('status', string), ('reason', string),
        ('cells_in', bigint), ('cells_passed', bigint), ('cells_generalized', bigint), ('cells_suppressed', bigint),
        ('rows_released', bigint), ('people_suppressed', bigint), ('suppression_rate', dbt.type_numeric()),
        ('people_in', bigint), ('events_null_unit', bigint), ('failed_check', string)]) -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error("kanon: no audit table '" ~ which ~ "'") }}
  {%- endif -%}
  {{ return(columns) }}
{% endmacro %}

{#- The fields of a cell row after its release's key: what the long form of a release carries
    as _kanon_<field> and the materialization copies into kanon_audit_cells. -#}
{% macro _audit_cell_fields() %}
  {%- set fields = [] -%}
  {%- for name, type in kanon._audit_column_types('cells') if name not in ['invocation_id', 'report_unique_id'] -%}
    {%- do fields.append((name, type)) -%}
  {%- endfor -%}
  {{ return(fields) }}
{% endmacro %}

{#- A typed, empty shell of an audit table ('cells' or 'releases'). -#}
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
    {{ exceptions.raise_compiler_error("kanon: the audit model " ~ name ~ " is missing or disabled; the k_anonymous materialization records every release there") }}
  {%- endif -%}
  {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias, type='table')) }}
{% endmacro %}
