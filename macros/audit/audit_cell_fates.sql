{#-
  kanon.audit_cell_fates(report, cells, invocation_id=none): "why is this cell missing?" for any
  past release. PRIVATE: it names thin cells; run it as the privacy officer (an analysis, dbt
  show --inline), never in front of report readers.

  The audit trail keeps one row per group a release formed (kanon_audit_groups), not one per
  finest cell. This replays the release's ladder for every cell of `cells` (a relation, or a
  select, with one column per dimension of the report, named as in its release_counts call, and
  any other columns, passed through): it labels the cell at each step's levels with the
  hierarchies as they were then (kanon_audit_hierarchies), and finds the first step whose
  released group holds it. A finest cell's fate is exact, because a thin cell's events climb
  together: its step-S group is released exactly when the trail holds a PASS or GENERALIZE row
  with its step-S labels and levels.

  Returns the cells' columns and
    cell_labels      JSON {dimension: label}, null for a NULL value or one missing from the hierarchy
    decision         PASS, GENERALIZE, SUPPRESS, or NULL when the release held no such cell (not
                     even in a suppressed group: it had no events then)
    ladder_step      the step that released it (0 for PASS)
    released_labels, released_levels, released_people: the published row holding it
  for the latest published release of `report` (a model name), or the one of `invocation_id`.
-#}
{% macro audit_cell_fates(report, cells, invocation_id=none) %}
  {%- set who = kanon._who('kanon.audit_cell_fates') -%}
  {%- do kanon._check_column_name(report, 'report (the name of a released model)', who) -%}
  {%- if cells is string -%}
    {%- if cells | trim == '' -%}
      {{ exceptions.raise_compiler_error(who ~ ": cells must be a relation or a select with one column per dimension, got an empty text") }}
    {%- endif -%}
  {%- else -%}
    {%- do kanon._check_relation(cells, 'cells (a relation, or a select as text)', who) -%}
  {%- endif -%}
  {%- if not execute -%}{{ return('select 1 as _kanon_parse_placeholder') }}{%- endif -%}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set found = run_query(
      "select invocation_id, report_unique_id, release_plan from " ~ releases
      ~ " where report = '" ~ (report | replace("'", "''")) ~ "' and status = 'RELEASED'"
      ~ ((" and invocation_id = '" ~ (invocation_id | replace("'", "''")) ~ "'") if invocation_id is not none else "")
      ~ " order by released_at desc limit 1") -%}
  {%- if found.rows | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": the audit trail " ~ releases ~ " holds no published release of '" ~ report ~ "'"
        ~ ((" from invocation " ~ invocation_id) if invocation_id is not none else "")) }}
  {%- endif -%}
  {%- set release = found.rows[0] -%}
  {%- if release[2] is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": '" ~ report ~ "' was released from a hand-written aggregate: its groups are its published rows, "
        ~ "listed in kanon_audit_groups, and there is no ladder to replay") }}
  {%- endif -%}
  {%- set plan = fromjson(release[2]) -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set source = ('(' ~ cells ~ ')') if cells is string else cells -%}
  {%- set cell_columns = get_columns_in_query('select * from ' ~ source ~ ' as _k_cell') -%}
  {%- set null_key = kanon._null_key() -%}
  {%- set snapshots = kanon._audit_relation('kanon_audit_hierarchies') -%}
  {%- set groups = kanon._audit_relation('kanon_audit_groups') -%}
  {%- set steps = plan.ladder -%}
  {%- set last = steps | length - 1 -%}
  {%- set key = "invocation_id = '" ~ release[0] ~ "' and report_unique_id = '" ~ (release[1] | replace("'", "''")) ~ "'" -%}
  {#- dimension i's value in a cell, as the engine keys it: text, NULL as the null key -#}
  {%- set values = [] -%}
  {%- for d in plan.dimensions -%}
    {%- do values.append('coalesce(cast(_k_cell.' ~ q(d.name) ~ ' as ' ~ string ~ '), ' ~ null_key ~ ')') -%}
  {%- endfor -%}
  {%- set recoded = [] -%}
  {%- for levels in steps -%}
    {%- set labels, level_pairs = [], [] -%}
    {%- for d in plan.dimensions -%}
      {%- set i = loop.index0 -%}
      {%- set code = kanon._hierarchy_recode(d, levels[i], values[i], '_k_hierarchy' ~ i, '_k_roots._k_root' ~ i) -%}
      {%- do labels.append((d.name, code.label, true)) -%}
      {%- do level_pairs.append((d.name, code.level, false)) -%}
    {%- endfor -%}
    {%- do recoded.append((kanon._json_object(labels), kanon._json_object(level_pairs))) -%}
  {%- endfor -%}
  {%- set originals = [] -%}
  {%- for d in plan.dimensions -%}
    {%- set missing = kanon._hierarchy_is_missing(d, values[loop.index0], '_k_hierarchy' ~ loop.index0) -%}
    {%- do originals.append((d.name, 'case when not (' ~ missing ~ ') then ' ~ values[loop.index0] ~ ' end', true)) -%}
  {%- endfor %}
with _k_roots as (
  select
    {%- for d in plan.dimensions %}
    {% if d.hierarchy is not none -%}
    (select max(label) from {{ snapshots }} where content_hash = '{{ d.hierarchy }}' and level = {{ d.depth }})
    {%- else -%}
    cast('*' as {{ string }})
    {%- endif %} as _k_root{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
),
{%- for d in plan.dimensions if d.hierarchy is not none %}
_k_hierarchy{{ plan.dimensions.index(d) }} as (
  select
    leaf as _k_leaf
    {%- for level in range(1, d.depth + 1) %},
    max(case when level = {{ level }} then label end) as _k_label{{ level }}
    {%- endfor %}
  from {{ snapshots }}
  where content_hash = '{{ d.hierarchy }}'
  group by leaf
),
{%- endfor %}
_k_groups as (
  select distinct decision, ladder_step, labels, levels, people
  from {{ groups }}
  where {{ key }}
),
_k_recoded as (
  select
    _k_cell.*,
    {{ kanon._json_object(originals) }} as _k_cell_labels,
    {%- if plan.null_policy == 'suppress' %}
    case when {% for value in values %}{% if not loop.first %} or {% endif %}{{ value }} = {{ null_key }}{% endfor %} then 1 else 0 end as _k_null,
    {%- else %}
    0 as _k_null,
    {%- endif %}
    {%- for labels, levels in recoded %}
    {{ labels }} as _k_labels{{ loop.index0 }},
    {{ levels }} as _k_levels{{ loop.index0 }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  from {{ source }} as _k_cell
  cross join _k_roots
  {%- for d in plan.dimensions if d.hierarchy is not none %}
  {%- set i = plan.dimensions.index(d) %}
  left join _k_hierarchy{{ i }} on {{ values[i] }} = _k_hierarchy{{ i }}._k_leaf
  {%- endfor %}
),
_k_matched as (
  select
    _k_recoded.*,
    case
      when _k_null = 1 then null
      {%- for s in range(steps | length) %}
      when _k_step{{ s }}.labels is not null then {{ s }}
      {%- endfor %}
    end as _k_step,
    _k_thin.people as _k_thin_people
    {%- for s in range(steps | length) %},
    _k_step{{ s }}.labels as _k_labels_at{{ s }},
    _k_step{{ s }}.levels as _k_levels_at{{ s }},
    _k_step{{ s }}.people as _k_people_at{{ s }}
    {%- endfor %}
  from _k_recoded
  {%- for s in range(steps | length) %}
  left join _k_groups as _k_step{{ s }}
    on _k_step{{ s }}.decision in ('PASS', 'GENERALIZE') and _k_step{{ s }}.ladder_step = {{ s }}
    and _k_step{{ s }}.labels = _k_recoded._k_labels{{ s }} and _k_step{{ s }}.levels = _k_recoded._k_levels{{ s }}
  {%- endfor %}
  left join _k_groups as _k_thin
    on _k_thin.decision = 'SUPPRESS'
    and (
      (_k_recoded._k_null = 0 and _k_thin.ladder_step = {{ last }}
        and _k_thin.labels = _k_recoded._k_labels{{ last }} and _k_thin.levels = _k_recoded._k_levels{{ last }})
      or (_k_recoded._k_null = 1 and _k_thin.ladder_step is null
        and _k_thin.labels = _k_recoded._k_labels0 and _k_thin.levels = _k_recoded._k_levels0))
)
select
  {%- for column in cell_columns %}
  {{ q(column) }},
  {%- endfor %}
  _k_cell_labels as cell_labels,
  case
    when _k_step = 0 then 'PASS'
    when _k_step > 0 then 'GENERALIZE'
    when _k_thin_people is not null then 'SUPPRESS'
  end as decision,
  _k_step as ladder_step,
  case _k_step{% for s in range(steps | length) %} when {{ s }} then _k_labels_at{{ s }}{% endfor %} end as released_labels,
  case _k_step{% for s in range(steps | length) %} when {{ s }} then _k_levels_at{{ s }}{% endfor %} end as released_levels,
  case _k_step{% for s in range(steps | length) %} when {{ s }} then _k_people_at{{ s }}{% endfor %} end as released_people
from _k_matched
{%- endmacro %}
