{#-
  kanon.audit_cell_fates(report, cells, invocation_id=none, people=none): "why is this cell
  missing?" for any past release. PRIVATE: it names thin cells; run it as the privacy officer (an
  analysis, dbt show --inline), never in front of report readers.

  The audit trail keeps one row per group a release formed (kanon_audit_groups), not one per
  finest cell. This replays the release's ladder for every cell of `cells` (a relation, or a
  select, with one column per dimension of the report, named as in its release_counts call, and
  any other columns, passed through): it labels the cell at each step's levels with the
  hierarchies as they were then (kanon_audit_hierarchies), and finds the first step whose
  released group holds it. A finest cell's fate is exact, because a thin cell's events climb
  together: its step-S group is released exactly when the trail holds a PASS or GENERALIZE row
  with its step-S labels and levels.

  Which cells the release held is not on the trail: a group at a cell's labels says nothing of
  whether that cell had events of its own. A cell whose events were all left out (a NULL person,
  outside the delay) or that had none would be answered by its neighbours' groups. `people`
  names a column of `cells` holding each cell's people as the release counted them (distinct
  non-NULL privacy units of the events it read, within its delay; rows under count_rows): a cell
  where it is 0 or NULL gets no decision. Without it every cell given is taken as held.

  Returns the cells' columns and
    cell_labels      JSON {dimension: label}, null for a NULL value or one missing from the hierarchy
    decision         PASS, GENERALIZE, SUPPRESS, or NULL when the release held no such cell (by
                     `people`, or when no group of the release holds its labels); a cell with a
                     NULL under null_policy='suppress' is SUPPRESS, as the release recorded it
    ladder_step      the step that released it (0 for PASS)
    released_labels, released_levels, released_people: the published row holding it
  for the latest published release of `report` (a model name), or the one of `invocation_id`.

  The plan, the same on every warehouse (each point is something Postgres got wrong):
    - each distinct value of a dimension is looked up in the hierarchy and coded as JSON once
      (_k_code<i>), not once per cell and step; the cells join a group-by of their own values,
      which Postgres estimates at about one row per cell, where a join with the hierarchy's
      leaves was estimated at hundreds of rows per cell: a cost that made it JIT-compile the
      statement with inlining and optimization, seconds per replay whatever its size;
    - each cell's keys at every step are computed once (_k_recoded, materialized), so that the
      joins compare columns, not JSON rebuilt inside each join;
    - cells are matched to groups by equalities only: one join per step with the released
      groups, one with the suppressed ones. The suppressed groups were joined on an OR (the
      last step's, or under null_policy='suppress' for a cell with a NULL, step 0's), which
      cannot be hashed: Postgres ran it as a nested loop over every cell and group, minutes
      for a few thousand cells;
    - the released and the suppressed groups are two CTEs, and the suppressed groups' step is a
      column of the cells, not a constant: one CTE filtered on two constants was estimated at a
      row, and Postgres looped over all the release's groups for every cell.
-#}
{% macro audit_cell_fates(report, cells, invocation_id=none, people=none) %}
  {%- set who = kanon._who('kanon.audit_cell_fates') -%}
  {%- do kanon._check_column_name(report, 'report (the name of a released model)', who) -%}
  {%- if cells is string -%}
    {%- if cells | trim == '' -%}
      {{ exceptions.raise_compiler_error(who ~ ": cells must be a relation or a select with one column per dimension,"
          ~ " got an empty text") }}
    {%- endif -%}
  {%- else -%}
    {%- do kanon._check_relation(cells, 'cells (a relation, or a select as text)', who) -%}
  {%- endif -%}
  {%- if people is not none -%}
    {%- do kanon._check_column_name(people, 'people (the column of cells holding each cell\'s people in the release)',
                                    who) -%}
  {%- endif -%}
  {%- if not execute -%}{{ return('select 1 as _kanon_parse_placeholder') }}{%- endif -%}
  {%- set release = kanon._audit_cell_fates_release(who, report, invocation_id) -%}
  {%- set plan = fromjson(release[2]) -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set source = ('(' ~ cells ~ ')') if cells is string else cells -%}
  {%- set cell_columns = get_columns_in_query('select * from ' ~ source ~ ' as _k_cell') -%}
  {%- set held = none -%}
  {%- if people is not none -%}
    {%- set named = [] -%}
    {%- for column in cell_columns if column | lower == people | lower -%}{%- do named.append(column) -%}{%- endfor -%}
    {%- if named | length != 1 -%}
      {{ exceptions.raise_compiler_error(who ~ ": people='" ~ people ~ "' is not a column of cells ("
          ~ (cell_columns | join(', ')) ~ ")") }}
    {%- endif -%}
    {%- set held = 'case when coalesce(_k_cell.' ~ q(named[0]) ~ ', 0) > 0 then 1 else 0 end' -%}
  {%- endif -%}
  {%- set null_key = kanon._null_key() -%}
  {%- set snapshots = kanon._audit_relation('kanon_audit_hierarchies') -%}
  {%- set groups = kanon._audit_relation('kanon_audit_groups') -%}
  {%- set steps = plan.ladder -%}
  {%- set suppress_nulls = plan.null_policy == 'suppress' -%}
  {%- set key = "invocation_id = '" ~ release[0] ~ "' and report_unique_id = '" ~ (release[1] | replace("'", "''"))
      ~ "'" -%}
  {%- set keyed = kanon._audit_cell_fates_keys(plan, null_key) -%}
  {%- set values, needed, recoded, originals = keyed['values'], keyed.needed, keyed.recoded, keyed.originals -%}
  {%- set thin = keyed.thin %}
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
{#- the cells, read once #}
_k_cells as {{ kanon._cte_materialized(true) }} (
  select * from {{ source }} as _k_cell
),
{#- each distinct value of a dimension with its labels as the release coded them (the
    hierarchy as it was then), as JSON: once per value, not once per cell and step #}
{%- for d in plan.dimensions %}
{{ kanon._audit_cell_fates_code_cte(d, loop.index0, values[loop.index0], needed[loop.index0], snapshots, null_key) }},
{%- endfor %}
{#- the groups the release published, by step, and those it suppressed (after the last step,
    or up front with a NULL, step -1) #}
_k_released as {{ kanon._cte_materialized(true) }} (
  select distinct ladder_step as _k_step, labels, levels, people
  from {{ groups }}
  where {{ key }} and decision in ('PASS', 'GENERALIZE')
),
_k_suppressed as {{ kanon._cte_materialized(true) }} (
  select distinct coalesce(ladder_step, -1) as _k_step, labels, levels, people
  from {{ groups }}
  where {{ key }} and decision = 'SUPPRESS'
),
{#- every cell's keys at every step, and of its suppressed group, computed once #}
_k_recoded as {{ kanon._cte_materialized(true) }} (
  select
    _k_keys.*,
    {{ thin.step }} as _k_thin_step,
    {{ thin.labels }} as _k_thin_labels,
    {{ thin.levels }} as _k_thin_levels
  from (
    select
      _k_cell.*,
      {{ kanon._json_object(originals) }} as _k_cell_labels,
      {{ held if held is not none else '1' }} as _k_held,
      {%- if suppress_nulls %}
      case when {% for d in plan.dimensions %}{% if not loop.first %} + {% endif %}_k_code{{ loop.index0 }}._k_null
      {%- endfor %} > 0 then 1 else 0 end as _k_null,
      {%- else %}
      0 as _k_null,
      {%- endif %}
      {%- for labels, levels in recoded %}
      {{ labels }} as _k_labels{{ loop.index0 }},
      {{ levels }} as _k_levels{{ loop.index0 }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_cells as _k_cell
    {%- for d in plan.dimensions %}
    left join _k_code{{ loop.index0 }} on {{ values[loop.index0] }} = _k_code{{ loop.index0 }}._k_value
    {%- endfor %}
  ) as _k_keys
),
{{ kanon._audit_cell_fates_matched(steps | length, cell_columns) }}
{%- endmacro %}

{#- The release of `report` whose ladder is replayed: (invocation_id, report_unique_id,
    release_plan) of its latest published release, or of `invocation_id`'s. -#}
{% macro _audit_cell_fates_release(who, report, invocation_id) %}
  {%- set releases = kanon._audit_relation('kanon_audit_releases') -%}
  {%- set found = run_query(
      "select invocation_id, report_unique_id, release_plan from " ~ releases
      ~ " where report = '" ~ (report | replace("'", "''")) ~ "' and status = 'RELEASED'"
      ~ ((" and invocation_id = '" ~ (invocation_id | replace("'", "''")) ~ "'") if invocation_id is not none else "")
      ~ " order by released_at desc limit 1") -%}
  {%- if found.rows | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": the audit trail " ~ releases ~ " holds no published release of '"
        ~ report ~ "'" ~ ((" from invocation " ~ invocation_id) if invocation_id is not none else "")) }}
  {%- endif -%}
  {%- set release = found.rows[0] -%}
  {%- if release[2] is none -%}
    {{ exceptions.raise_compiler_error(who ~ ": '" ~ report ~ "' was released from a hand-written aggregate: its groups"
        ~ " are its published rows, listed in kanon_audit_groups, and there is no ladder to replay") }}
  {%- endif -%}
  {{ return(release) }}
{% endmacro %}

{#- What the replay keys cells on, from the release's plan: {values: each dimension's value in a
    cell, as the engine keys it; needed: the levels each dimension takes at some step, with 0;
    recoded: a cell's (labels, levels) JSON at each step, from its values' codes (_k_code<i>);
    originals: its own labels' JSON pairs; thin: the step, labels and levels of the suppressed
    group that would hold it}. -#}
{% macro _audit_cell_fates_keys(plan, null_key) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set steps = plan.ladder -%}
  {%- set last = steps | length - 1 -%}
  {%- set suppress_nulls = plan.null_policy == 'suppress' -%}
  {#- dimension i's value in a cell, as the engine keys it: text, NULL as the null key -#}
  {%- set values = [] -%}
  {%- for d in plan.dimensions -%}
    {%- do values.append('coalesce(cast(_k_cell.' ~ q(d.name) ~ ' as ' ~ string ~ '), ' ~ null_key ~ ')') -%}
  {%- endfor -%}
  {#- the levels each dimension takes at some step, and (with level 0) the labels coded for it -#}
  {%- set needed = [] -%}
  {%- for d in plan.dimensions -%}
    {%- do needed.append(([0] + (steps | map(attribute=loop.index0) | list)) | unique | sort | list) -%}
  {%- endfor -%}
  {#- a cell's labels and levels at each step, as JSON, from its values' codes (_k_code<i>) -#}
  {%- set recoded = [] -%}
  {%- for levels in steps -%}
    {%- set labels, level_pairs = [], [] -%}
    {%- for d in plan.dimensions -%}
      {%- do labels.append((d.name, '_k_code' ~ loop.index0 ~ '._k_json' ~ levels[loop.index0], false)) -%}
      {%- do level_pairs.append((d.name, '_k_code' ~ loop.index0 ~ '._k_level' ~ levels[loop.index0], false)) -%}
    {%- endfor -%}
    {%- do recoded.append((kanon._json_object(labels), kanon._json_object(level_pairs))) -%}
  {%- endfor -%}
  {%- set originals = [] -%}
  {%- for d in plan.dimensions -%}
    {%- do originals.append((d.name, '_k_code' ~ loop.index0 ~ '._k_cell_json', false)) -%}
  {%- endfor -%}
  {#- The suppressed group holding a cell: its group of the last step, or under
      null_policy='suppress' for a cell with a NULL, its step-0 group, recorded without a step
      (-1 here). One key either way, so that the join is an equality. -#}
  {%- if suppress_nulls -%}
    {%- set thin = {
        'step': 'case when _k_keys._k_null = 1 then -1 else ' ~ last ~ ' end',
        'labels': 'case when _k_keys._k_null = 1 then _k_keys._k_labels0 else _k_keys._k_labels' ~ last ~ ' end',
        'levels': 'case when _k_keys._k_null = 1 then _k_keys._k_levels0 else _k_keys._k_levels' ~ last ~ ' end'} -%}
  {%- else -%}
    {%- set thin = {'step': last, 'labels': '_k_keys._k_labels' ~ last, 'levels': '_k_keys._k_levels' ~ last} -%}
  {%- endif -%}
  {{ return({'values': values, 'needed': needed, 'recoded': recoded, 'originals': originals, 'thin': thin}) }}
{% endmacro %}

{#- `_k_code<i>`, not followed by a comma: each distinct value of dimension `d` in the cells
    (`value`: as the engine keys it) with its labels at the `needed` levels as the release coded
    them (the hierarchy as it was then), as JSON. -#}
{% macro _audit_cell_fates_code_cte(d, i, value, needed, snapshots, null_key) -%}
{%- set lookup = '_k_lookup' ~ i -%}
_k_code{{ i }} as {{ kanon._cte_materialized(true) }} (
  select
    {{ lookup }}._k_value,
    {%- if d.hierarchy is not none %}
    {%- set missing = lookup ~ '._k_leaf is null' %}
    {%- else %}
    {%- set missing = lookup ~ '._k_value = ' ~ null_key %}
    {%- endif %}
    {{ kanon._json_text('case when not (' ~ missing ~ ') then ' ~ lookup ~ '._k_value end') }} as _k_cell_json,
    case when {{ lookup }}._k_value = {{ null_key }} then 1 else 0 end as _k_null
    {%- for level in needed %}
    {%- set code = kanon._hierarchy_recode(d, level, lookup ~ '._k_value', lookup, '_k_roots._k_root' ~ i) %},
    {{ kanon._json_text(code.label) }} as _k_json{{ level }},
    {{ code.level }} as _k_level{{ level }}
    {%- endfor %}
  from (
    select
      _k_distinct._k_value
      {%- if d.hierarchy is not none %},
      max(_k_snapshot.leaf) as _k_leaf
      {%- for level in needed if 0 < level < d.depth %},
      max(case when _k_snapshot.level = {{ level }} then _k_snapshot.label end) as _k_label{{ level }}
      {%- endfor %}
      {%- endif %}
    from (select distinct {{ value }} as _k_value from _k_cells as _k_cell) as _k_distinct
    {%- if d.hierarchy is not none %}
    left join {{ snapshots }} as _k_snapshot
      on _k_snapshot.content_hash = '{{ d.hierarchy }}' and _k_snapshot.leaf = _k_distinct._k_value
    group by _k_distinct._k_value
    {%- endif %}
  ) as {{ lookup }}
  cross join _k_roots
)
{%- endmacro %}

{#- `_k_matched` (each cell's keys with the released group holding it at each of the
    `step_count` steps, and its suppressed group's people) and the select of every cell's fate. -#}
{% macro _audit_cell_fates_matched(step_count, cell_columns) -%}
{%- set q = kanon._quote -%}
_k_matched as (
  select
    _k_recoded.*,
    case
      when _k_recoded._k_held = 0 or _k_recoded._k_null = 1 then null
      {%- for s in range(step_count) %}
      when _k_at{{ s }}.labels is not null then {{ s }}
      {%- endfor %}
    end as _k_step,
    case when _k_recoded._k_held = 1 then _k_thin.people end as _k_thin_people
    {%- for s in range(step_count) %},
    _k_at{{ s }}.labels as _k_labels_at{{ s }},
    _k_at{{ s }}.levels as _k_levels_at{{ s }},
    _k_at{{ s }}.people as _k_people_at{{ s }}
    {%- endfor %}
  from _k_recoded
  {%- for s in range(step_count) %}
  left join _k_released as _k_at{{ s }}
    on
    _k_at{{ s }}._k_step = {{ s }}
    and _k_at{{ s }}.labels = _k_recoded._k_labels{{ s }} and _k_at{{ s }}.levels = _k_recoded._k_levels{{ s }}
  {%- endfor %}
  left join _k_suppressed as _k_thin
    on
    _k_thin._k_step = _k_recoded._k_thin_step
    and _k_thin.labels = _k_recoded._k_thin_labels and _k_thin.levels = _k_recoded._k_thin_levels
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
  case _k_step{% for s in range(step_count) %} when {{ s }} then _k_labels_at{{ s }}{% endfor %} end as released_labels,
  case _k_step{% for s in range(step_count) %} when {{ s }} then _k_levels_at{{ s }}{% endfor %} end as released_levels,
  case _k_step{% for s in range(step_count) %} when {{ s }} then _k_people_at{{ s }}{% endfor %} end as released_people
from _k_matched
{%- endmacro %}
