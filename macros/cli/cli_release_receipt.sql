{#-
  dbt run-operation kanon.cli_release_receipt --args '{report: people_extract}'

  What `python -m kanon_tools receipt` reads: one release of a report, from the audit trail's
  releases (kanon_audit_releases, wherever the project put it): the latest one of the report, or
  the one of invocation_id. `report` is the model's name or its unique id; the trail is read, not
  the graph, so a report no longer in the project still has its receipts. Emits one KANON_JSON
  line, {report, report_unique_id, invocation_id, released_at, status, reason, failed_check, k,
  release_kind, policy_fingerprint, rows_released, cells_in, cells_suppressed, people_in,
  people_suppressed, release_plan, rows_compared, rows_changed_small, rows_held, rows_appeared,
  rows_disappeared}: the release's summary row, counts and its plan as text (the
  plan names columns, hierarchies and counts, never a value of the data). A column a trail from
  an older kanon lacks is none. Refuses, in one line, when there is no trail, no such release,
  or a name shared by two reports. Only reads (see _cli_read_only).
-#}
{% macro cli_release_receipt(report, invocation_id=none) %}
  {%- set who = 'kanon.cli_release_receipt' -%}
  {%- if report is not string or report | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": report must be a released model's name or unique id, got "
        ~ kanon._describe_value(report)) }}
  {%- endif -%}
  {%- if invocation_id is not none and (invocation_id is not string or invocation_id | trim == '') -%}
    {{ exceptions.raise_compiler_error(who ~ ": invocation_id must be a dbt invocation id"
        ~ " (see python -m kanon_tools audit-log), got " ~ kanon._describe_value(invocation_id)) }}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set releases = kanon._cli_audit_releases(who) -%}
  {%- set fields = ['report', 'report_unique_id', 'invocation_id', 'released_at', 'status', 'reason', 'failed_check',
                    'k', 'release_kind', 'policy_fingerprint', 'rows_released', 'cells_in', 'cells_suppressed',
                    'people_in', 'people_suppressed', 'release_plan', 'rows_compared', 'rows_changed_small',
                    'rows_held', 'rows_appeared', 'rows_disappeared'] -%}
  {%- set counts = ['k', 'rows_released', 'cells_in', 'cells_suppressed', 'people_in', 'people_suppressed',
                    'rows_compared', 'rows_changed_small', 'rows_held', 'rows_appeared', 'rows_disappeared'] -%}
  {%- set present = adapter.get_columns_in_relation(releases) | map(attribute='name') | map('lower') | list -%}
  {%- set name = report | trim | replace("'", "''") -%}
  {%- set matching -%}
    (report = '{{ name }}' or report_unique_id = '{{ name }}')
    {%- if invocation_id is not none %} and invocation_id = '{{ invocation_id | trim | replace("'", "''") }}'{% endif %}
  {%- endset -%}
  {%- set found = run_query("select distinct report_unique_id from " ~ releases ~ " where " ~ matching) -%}
  {%- set reports = found.columns[0].values() | list -%}
  {%- if reports | length > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": several reports are named '" ~ report ~ "' in the audit trail ("
        ~ (reports | map('string') | sort | join(', ')) ~ "); give the unique id as report") }}
  {%- endif -%}
  {%- set sql -%}
    select
      {%- for field in fields %}
      {% if field in present %}{{ field }}{% else %}cast(null as {{ dbt.type_string() }}) as {{ field }}{% endif %}
      {%- if not loop.last %},{% endif %}
      {%- endfor %}
    from {{ releases }}
    where {{ matching }}
    order by released_at desc, invocation_id desc
    limit 1
  {%- endset -%}
  {%- set rows = run_query(sql).rows -%}
  {%- if rows | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": no release of '" ~ report ~ "'"
        ~ (" by invocation " ~ invocation_id if invocation_id is not none else '') ~ " in the audit trail " ~ releases
        ~ " (python -m kanon_tools audit-log lists the releases there)") }}
  {%- endif -%}
  {%- set row = rows[0] -%}
  {#- agate hands numbers back as Decimal and timestamps as datetime, which JSON cannot carry. -#}
  {%- set out = {} -%}
  {%- for field in fields -%}
    {%- set value = row[field] -%}
    {%- if value is none -%}
      {%- do out.update({field: none}) -%}
    {%- elif field in counts -%}
      {%- do out.update({field: value | int}) -%}
    {%- else -%}
      {%- do out.update({field: value | string}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do kanon._cli_emit(out) -%}
{% endmacro %}
