{#-
  The refusals dbt's own errors hid (_audit_trail.sql has the trail's life cycle): a release that
  failed before its gate recorded anything is put on the trail by kanon's on-run-end hook.
-#}

{#- A k_anonymous model of this `dbt run` or `dbt build` that ended in an error before its gate
    recorded anything (a release macro refused its arguments when the model compiled, the
    materialization refused the model before its checks, or the warehouse failed) is an attempted
    release too: one REFUSED row each, failed_check 'compile' (refused while compiling) or 'error'
    (anything else), written here since a compile error stops the model before its
    materialization runs. The reason is kanon's own message (names and counts), else a general
    line: a warehouse's error can quote a value of the data. Skipped models were not attempted.
    Not recorded: a project that does not parse, and an invocation killed before its hooks. -#}
{% macro _audit_record_unrecorded_refusals(audit_releases, results) %}
  {%- if results is none or flags.WHICH not in ['run', 'build'] -%}{{ return('') }}{%- endif -%}
  {%- set inserts = [] -%}
  {%- for result in results if result.status == 'error' and result.node.resource_type == 'model'
        and result.node.config.materialized == 'k_anonymous' -%}
    {%- set node = result.node -%}
    {%- set lines = [] -%}
    {%- for line in (result.message or '').split('\n') if line | trim and not (line | trim).startswith('>') -%}
      {%- do lines.append(line | trim) -%}
    {%- endfor -%}
    {%- set compile = lines and lines[0].startswith('Compilation Error') -%}
    {%- set said = lines[1:] if lines and lines[0].endswith(')') and ' in model ' in lines[0] else lines -%}
    {%- set reason = said[0] if said and said[0].startswith('kanon')
        else 'the model failed before the gate with an error that is not'
        ~ " kanon's (dbt's log has it; a warehouse's message may quote data, so it is not copied here)" -%}
    {%- set k = node.config.get('k') -%}
    {%- do inserts.append(kanon._audit_insert_refused(audit_releases, {
        'invocation_id': invocation_id, 'report': node.name, 'report_unique_id': node.unique_id,
        'k': (k | int) if k is number and k is not boolean and k == (k | int) and 0 < k < 2147483648 else none,
        'policy_fingerprint': none,
        'count_column': node.config.get('count_column') if node.config.get('count_column') is string else none,
        'release_kind': node.config.get('kanon_release_kind') or 'hand_written', 'release_plan': none},
        'compile' if compile else 'error', reason[:2000], any_row=true)) -%}
  {%- endfor -%}
  {%- for insert in inserts -%}
    {%- do kanon._audit_write_bound(insert, [none]) -%}
  {%- endfor -%}
  {%- if inserts -%}{%- do adapter.commit() -%}{%- endif -%}
{% endmacro %}
