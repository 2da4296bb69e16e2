{#-
  The evaluation of lattice nodes on the packed class table, as SQL (_records_search_batch runs
  it; the report evaluates the chosen node and the rescue steps with it). A class's labels at a
  node are its packed words masked with the node's masks; the classes at each node are judged
  (_records_judge_ctes) and summed into one row per node: its classes and records by fate,
  whether it passes within the budget, its loss under every metric and the bound on the loss of
  every node above it.

  The CTEs: _k_batch (the nodes of a batch), _k_at (every class at each of them), _k_cls and
  _k_judged (the classes at a node, and their fate), _k_nodes (each node's figures), _k_people
  (its people suppressed).
-#}

{#- A batch's columns from the lattice: the node, its height, levels and word masks. -#}
{% macro _records_batch_columns(plan, search) %}
  {%- set columns = ['_k_node', '_k_height'] + kanon._records_levels(plan) -%}
  {%- for word in search.words -%}{%- do columns.append('_k_m' ~ loop.index0) -%}{%- endfor -%}
  {{ return(columns | join(', ')) }}
{% endmacro %}

{#- The keys of a class at a node: the node, whether its records are suppressed up front, and
    its labels (in the search: the packed words masked to the node, _k_k<j>; else per column). -#}
{% macro _records_node_keys(plan, search=none) %}
  {%- set keys = ['_k_node', '_k_missing'] -%}
  {%- if search is not none -%}
    {%- for word in search.words -%}{%- do keys.append('_k_k' ~ loop.index0) -%}{%- endfor -%}
  {%- else -%}
    {%- for qi in plan.qis -%}{%- do keys.append('_k_g' ~ qi.index) -%}{%- endfor -%}
  {%- endif -%}
  {{ return(keys) }}
{% endmacro %}

{#- `with _k_batch, _k_at (the class table at each node of batch_sql: its labels there, loss and
    weights; lean: no loss), _k_cls, _k_judged,` : the classes of every node of the batch, judged.
    inline: _k_batch, read twice, is not materialized (_records_evaluate_parts). -#}
{% macro _records_at_ctes(plan, search, batch_sql, keys, lean=false, inline=false) %}
with
_k_batch as {{ kanon._cte_materialized(false) if inline }} ({{ batch_sql }}),
_k_at as (
  select
    _k_b._k_node,
    _k_c._k_missing,
    {%- for word in search.words %}
    _k_c._k_w{{ loop.index0 }} & _k_b._k_m{{ loop.index0 }} as _k_k{{ loop.index0 }},
    {%- endfor %}
    _k_c._k_n,
    {%- if plan.privacy_unit is not none %}
    _k_c._k_person,
    {%- endif %}
    {%- for name in plan.sensitive %}
    _k_c._k_s{{ loop.index0 }},
    {%- endfor %}
    {%- if lean %}
    0 as _k_nue,
    0 as _k_nue_top
    {%- else %}
    0
    {%- for qi in plan.qis %}
    + case _k_b._k_l{{ qi.index }} when 0 then 0
    {%- for level in range(1, qi.depth + 1) %} when {{ level }} then _k_c._k_q{{ qi.index }}_nue{{ level }}
    {%- endfor %} end
    {%- endfor %} as _k_nue,
    _k_c._k_nue_top
    {%- endif %}
  from _k_batch as _k_b
  cross join {{ search.tables.classes }} as _k_c
),
{{ kanon._records_judge_ctes(plan, '_k_at', keys) }}
{%- endmacro %}

{#- One row per node of `batch_sql` (_k_node, _k_height, _k_l<i>, _k_batch): its classes and
    suppressed records by fate, whether it passes, its loss under every metric and the bound on
    the loss of every node above it. -#}
{% macro _records_evaluate_sql(plan, search, batch_sql, lean=false, inline=false) %}
  {%- set decimal = 'decimal(38, 6)' -%}
  {%- set keys = kanon._records_node_keys(plan, search) -%}
  {%- set people = plan.suppression_unit == 'people' and plan.privacy_unit is not none -%}
{{ kanon._records_at_ctes(plan, search, batch_sql, keys, lean, inline) }}
_k_nodes as (
  select
    _k_node,
    count(*) as _k_classes,
    {#- lean: only what tells pass or fail (an aggregate costs a call per class and node) -#}
    {%- set unless_lean = 'cast(null as ' ~ dbt.type_bigint() ~ ')' if lean else none %}
    {{ unless_lean or "sum(case when _k_fate = 'kept' then 1 else 0 end)" }} as _k_classes_kept,
    {{ unless_lean or "sum(case when _k_fate = 'too_small' then 1 else 0 end)" }} as _k_classes_too_small,
    {{ unless_lean or "sum(case when _k_fate = 'not_diverse' then 1 else 0 end)" }} as _k_classes_not_diverse,
    sum(case when _k_fate = 'kept' then 0 else _k_records end) as _k_suppressed_records,
    sum(case when _k_fate = 'too_small' then _k_records else 0 end) as _k_too_small_records,
    sum(case when _k_fate = 'not_diverse' then _k_records else 0 end) as _k_not_diverse_records,
    sum(case when _k_fate = 'missing' then _k_records else 0 end) as _k_missing_records,
    {{ unless_lean or "sum(case when _k_fate = 'kept' then _k_records * _k_records else 0 end)" }} as _k_dm_kept,
    {{ unless_lean or "sum(case when _k_fate = 'kept' then _k_nue else _k_nue_top end)" }} as _k_nue,
    {{ unless_lean or "sum(case when _k_fate = 'missing' then _k_nue_top else _k_nue end)" }} as _k_nue_bound
  from _k_judged
  group by _k_node
)
{%- if people %},
{#- people suppressed: distinct persons with a suppressed record (a person may be in several classes) -#}
_k_people as (
  select
    _k_at._k_node,
    count(distinct case when _k_judged._k_fate <> 'kept' then _k_at._k_person end) as _k_suppressed_people,
    count(distinct case when _k_judged._k_fate in ('too_small', 'missing') then _k_at._k_person end) as _k_thin_people
  from _k_at
  inner join _k_judged on
    {%- for key in keys %} {% if not loop.first %}and {% endif %}_k_judged.{{ key }} = _k_at.{{ key }}{%- endfor %}
  group by _k_at._k_node
)
{%- endif %}
select
  _k_batch.*,
  _k_nodes._k_classes,
  _k_nodes._k_classes_kept,
  _k_nodes._k_classes_too_small,
  _k_nodes._k_classes_not_diverse,
  _k_nodes._k_suppressed_records,
  _k_nodes._k_too_small_records,
  _k_nodes._k_not_diverse_records,
  _k_nodes._k_missing_records,
  {%- if people %}
  _k_people._k_suppressed_people,
  {%- set suppressed, thin = '_k_people._k_suppressed_people', '_k_people._k_thin_people' %}
  {%- else %}
  {%- set suppressed, thin = '_k_nodes._k_suppressed_records',
      '_k_nodes._k_too_small_records + _k_nodes._k_missing_records' %}
  {%- endif %}
  case when {{ suppressed }} <= {{ search.limit }} then 1 else 0 end as _k_passes,
  {#- what tells of the nodes below: failing, or (not monotone) failing k alone -#}
  case when {{ (suppressed if search.monotone else thin) }} > {{ search.limit }} then 1 else 0 end as _k_fails_below,
  cast(_k_batch._k_height as {{ decimal }}) as _k_loss_height,
  {%- if lean %}
  cast(null as {{ decimal }}) as _k_loss_discernibility,
  cast(null as {{ decimal }}) as _k_loss_non_uniform_entropy,
  cast(null as {{ decimal }}) as _k_bound
  {%- else %}
  cast(_k_nodes._k_dm_kept + _k_nodes._k_suppressed_records * {{ search.records_in }} as {{ decimal }})
    {{- ' as ' }}_k_loss_discernibility,
  cast(_k_nodes._k_nue as {{ decimal }}) as _k_loss_non_uniform_entropy,
  {%- endif %}
  {%- if lean %}
  {%- elif plan.loss == 'discernibility' %}
  cast(_k_nodes._k_dm_kept + (_k_nodes._k_suppressed_records - _k_nodes._k_missing_records) * {{ plan.k }}
       + _k_nodes._k_missing_records * {{ search.records_in }} as {{ decimal }}) as _k_bound
  {%- elif plan.loss == 'non_uniform_entropy' %}
  cast(_k_nodes._k_nue_bound as {{ decimal }}) as _k_bound
  {%- else %}
  cast(_k_batch._k_height as {{ decimal }}) as _k_bound
  {%- endif %}
from _k_batch
inner join _k_nodes on _k_nodes._k_node = _k_batch._k_node
{%- if people %}
inner join _k_people on _k_people._k_node = _k_batch._k_node
{%- endif %}
{%- endmacro %}
