{#-
  dbt run-operation kanon.cli_audit_log --args '{last: 10}'

  What `python -m kanon_tools audit-log` reads: the release rows of the audit trail
  (kanon_audit_releases, wherever the project put it), oldest first, as
  {relation, releases: [{report, released_at, status, policy_fingerprint, k, cells_in,
  cells_suppressed, suppression_rate, reason}]}, emitted as one KANON_JSON line. Summary rows
  only: no cell, group or label of any release. last: only the latest so many (default all: the
  CLI reads all, since a jump is judged against the release before it, however old). Only reads.
-#}
{% macro cli_audit_log(last=none) %}
  {%- set who = 'kanon.cli_audit_log' -%}
  {%- if last is not none -%}
    {%- do kanon._check_whole_number(last, 'last', who, minimum=1) -%}
  {%- endif -%}
  {%- do kanon._cli_read_only() -%}
  {%- set releases = kanon._cli_audit_releases(who) -%}
  {%- set sql -%}
    select * from (
      select
        report,
        released_at,
        status,
        policy_fingerprint,
        k,
        cells_in,
        cells_suppressed,
        suppression_rate,
        reason
      from {{ releases }}
      order by released_at desc, report desc
      {% if last is not none %}limit {{ last }}{% endif %}
    ) as latest
    order by released_at, report
  {%- endset -%}
  {%- set out = [] -%}
  {#- agate hands numbers back as Decimal and timestamps as datetime, which JSON cannot carry. -#}
  {%- for row in run_query(sql).rows -%}
    {%- do out.append({
        'report': row['report'],
        'released_at': none if row['released_at'] is none else row['released_at'] | string,
        'status': row['status'],
        'policy_fingerprint': row['policy_fingerprint'],
        'k': none if row['k'] is none else row['k'] | int,
        'cells_in': none if row['cells_in'] is none else row['cells_in'] | int,
        'cells_suppressed': none if row['cells_suppressed'] is none else row['cells_suppressed'] | int,
        'suppression_rate': none if row['suppression_rate'] is none else row['suppression_rate'] | string,
        'reason': row['reason'],
    }) -%}
  {%- endfor -%}
  {%- do kanon._cli_emit({'relation': releases | string, 'releases': out}) -%}
{% endmacro %}
