{#-
  The lattice search of kanon.release_records, run by the macro when the model compiles: the
  warehouse does the counting, the macro only steers. Three scratch tables (_scratch_table: private
  to the session; on Spark, and on Postgres, where workers may then scan them in parallel, unlogged
  tables in the private audit schema; dropped at the end, and by the model's next search after a
  crash): the level-0 class table
  (one scan of the relation, then copied once with its label codes packed into words,
  _records_pack_classes), the lattice (one row per node: a level per quasi-identifier, a lower
  bound on its loss and a mask per word), and the evaluated nodes. A node is evaluated on the class table, never on the raw rows; monotonicity
  settles the rest: a node that satisfies the model makes every more general node satisfy it, and
  one that fails makes every less general one fail (a class of a more general node is a union of
  classes, so it is at least as large and as diverse; records suppressed there were suppressed
  below). Entropy l-diversity with a suppression budget is not monotone (a union of a diverse and
  a thin class can fall below ln(l)): there only k's failures are propagated.

  A node's loss is never below its lower bound, known without evaluating it: for non-uniform
  entropy, the loss of its generalization with nothing suppressed (a suppressed record costs its
  loss at the top, the most any node charges it), summed from one pass over the class table; for
  height, the height. Discernibility has no such bound.

  Each phase is a macro of its own in macros/records/search/, whose header says what it reads
  and writes; this one only strings them together. The state they share is the dict the first
  returns (`search`): the scratch tables' names (`tables`), the packed words, the budget, and the
  number of the last batch evaluated (`progress`, _records_search_batch).

    0. classes   (_records_search_classes) the session (_search_session: scratch names, the
                 planner settings, the timers), the class table and its words
       lattice   (_records_search_lattice) every node, with its loss's lower bound
    1. descend   (_records_search_descend; entropy, height) from the most general node,
                 greedily: evaluate the node's direct predecessors and step to the one of least
                 loss that satisfies the model, until none does. Its loss bounds the optimum
                 from above.
    2. classify  (_records_search_classify) only nodes whose lower bound is within the best loss
                 found matter. Entropy and height: top-down, every such node of unknown state at
                 the highest height (a node that fails there settles everything below it).
                 Discernibility: binary search over heights, every node of unknown state at the
                 middle height.
    3. minimize  (_records_search_minimize) the least loss among satisfying nodes: a satisfying
                 node not yet evaluated is skipped when its lower bound, or the bound an
                 evaluated node below it gives (every record's loss only grows with
                 generalization; a suppressed record costs at least k, or its loss at the node
                 below), exceeds the best found; else evaluated, lowest first. Ties: least
                 height, then the smallest levels in the order the columns come.
    4. report    (_records_search_report) the chosen node's figures, and for each
                 quasi-identifier how many suppressed records one more step on it would rescue.

  Naming: a node's level of quasi-identifier i is _k_l<i>, its number _k_node and height
  _k_height; a class's packed label words _k_w<j>, a node's masks of them _k_m<j>, and a class's
  labels at a node (a word masked) _k_k<j>. The evaluation's CTEs: _k_batch (the nodes of a
  batch), _k_at (every class at each of them), _k_cls and _k_judged (the classes at a node, and
  their fate: _records_judge_ctes), _k_nodes (each node's figures), _k_people (its people
  suppressed).

  No node satisfying the model within the budget refuses the release (reported from the most
  general node: how far it is from k, or from l).
-#}
{% macro _records_search(plan) %}
  {%- set search = kanon._records_search_classes(plan) -%}
  {%- if search.records_in == 0 -%}
    {{ return(kanon._records_search_nothing(plan, search)) }}
  {%- endif -%}
  {%- do kanon._records_search_lattice(plan, search) -%}
  {%- do kanon._records_search_descend(plan, search) -%}
  {%- do kanon._records_search_classify(plan, search) -%}
  {%- do kanon._records_search_minimize(plan, search) -%}
  {{ return(kanon._records_search_report(plan, search)) }}
{% endmacro %}

{#- Evaluates the lattice nodes matching `condition` as the search's next batch
    (_records_evaluate_batch: `lean`, `at_most`), creating the evals table the first time; returns
    the batch's number. -#}
{% macro _records_search_batch(plan, search, condition, lean=false, at_most=none) %}
  {%- set progress = search.progress -%}
  {%- do progress.update({'batch': progress.batch + 1}) -%}
  {%- do kanon._records_evaluate_batch(plan, search, progress.batch, condition, not progress.created, lean=lean, at_most=at_most) -%}
  {%- do progress.update({'created': true}) -%}
  {{ return(progress.batch) }}
{% endmacro %}

{#- The order that picks the best of satisfying nodes: least loss, then least height, then the
    smallest levels in the order the columns come. -#}
{% macro _records_search_order(plan) %}
  {{ return('_k_loss_' ~ plan.loss ~ ', _k_height, ' ~ (kanon._records_levels(plan) | join(', '))) }}
{% endmacro %}

{#- ['_k_l0', '_k_l1', ...]: the lattice's level columns, in the order the columns come. -#}
{% macro _records_levels(plan) %}
  {%- set levels = [] -%}
  {%- for qi in plan.qis -%}{%- do levels.append('_k_l' ~ qi.index) -%}{%- endfor -%}
  {{ return(levels) }}
{% endmacro %}

{#- `<node> is at least as general as <other>` in every column. -#}
{% macro _records_at_least(plan, node, other) %}
  {%- set parts = [] -%}
  {%- for qi in plan.qis -%}{%- do parts.append(node ~ '._k_l' ~ qi.index ~ ' >= ' ~ other ~ '._k_l' ~ qi.index) -%}{%- endfor -%}
  {{ return(parts | join(' and ')) }}
{% endmacro %}

{#- Drops the search's scratch tables (the class table is the packed one once packed). -#}
{% macro _records_drop_temporary(t) %}
  {%- do kanon._search_drop([t.evals, t.lattice, t.classes, t.packed]) -%}
{% endmacro %}

{#- Evaluates the lattice nodes matching `condition` into the evals table (creating it the first
    time), as batch number `batch`. `lean`: whether each node passes, not its loss (left NULL).
    `at_most`: how many nodes match at most, when the caller knows (no count is queried then, if
    they fit in one chunk). -#}
{% macro _records_evaluate_batch(plan, search, batch, condition, create, lean=false, at_most=none) %}
  {%- set t = search.tables -%}
  {%- set ids = [] -%}
  {%- if at_most is not none and at_most <= search.chunk -%}
    {%- set nodes = at_most -%}
  {%- else -%}
    {%- for node in run_query('select _k_node from ' ~ t.lattice ~ ' where ' ~ condition ~ ' order by _k_node').columns[0].values() -%}
      {%- do ids.append(node | int) -%}
    {%- endfor -%}
    {%- set nodes = ids | length -%}
  {%- endif -%}
  {#- in chunks of search.chunk nodes (by node number), all of them one batch; a chunk names its
      nodes (a window ranking the lattice in each chunk's query made Postgres sort there, which
      with sorting costed off it planned in one process) -#}
  {%- for chunk in range(((nodes + search.chunk - 1) // search.chunk) if nodes > 0 else 1) -%}
    {%- set chosen = condition if nodes <= search.chunk
        else '_k_node in (' ~ (ids[chunk * search.chunk:(chunk + 1) * search.chunk] | join(', ')) ~ ')' -%}
    {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ', ' ~ batch ~ ' as _k_batch from '
        ~ t.lattice ~ ' where ' -%}
    {%- set sql = kanon._records_evaluate_parts(plan, search, batch_sql, chosen, lean, [nodes, search.chunk] | min) -%}
    {%- if create and loop.first -%}
      {%- do kanon._scratch_create(t.evals, sql) -%}
    {%- else -%}
      {%- do kanon._scratch_insert(t.evals, sql) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- the propagation joins the lattice with the batch: planned from the table's real size -#}
  {%- do kanon._scratch_analyze(t.evals) -%}
{% endmacro %}

{#- The evaluation of the nodes `batch_sql` ('select ... where ') selects with `condition`, at most
    `nodes` of them: split by node number into as many parts as the warehouse runs in parallel, one
    evaluation each, under UNION ALL. Postgres runs each part whole in one process (a Parallel
    Append); it would not split one evaluation across its workers, since it cannot know that the
    classes of one node never meet another's, and the grouping they feed is most of the work. A
    part's CTEs are inlined: Postgres runs a scan of a materialized CTE in the leader only. -#}
{% macro _records_evaluate_parts(plan, search, batch_sql, condition, lean, nodes) %}
  {%- set workers = kanon._records_search_settings().get('max_parallel_workers_per_gather', 0) | int -%}
  {%- set parts = [workers + 1, nodes] | min -%}
  {%- if parts <= 1 -%}
    {{ return(kanon._records_evaluate_sql(plan, search, batch_sql ~ condition, lean)) }}
  {%- endif -%}
  {%- set selects = [] -%}
  {%- for part in range(parts) -%}
    {%- set part_sql = batch_sql ~ '(' ~ condition ~ ') and mod(_k_node, ' ~ parts ~ ') = ' ~ part -%}
    {%- do selects.append('select * from (' ~ kanon._records_evaluate_sql(plan, search, part_sql, lean, inline=true)
        ~ ') as _k_part' ~ part) -%}
  {%- endfor -%}
  {{ return(selects | join('\nunion all\n')) }}
{% endmacro %}

{#- The passing nodes of a lean batch, evaluated again in full (their loss). -#}
{% macro _records_complete_batch(plan, search, batch) %}
  {%- set t = search.tables -%}
  {%- set passing = run_query('select _k_node from ' ~ t.evals ~ ' where _k_batch = ' ~ batch ~ ' and _k_passes = 1').columns[0].values() -%}
  {%- if passing | length > 0 -%}
    {%- set nodes = [] -%}
    {%- for node in passing -%}{%- do nodes.append(node | int) -%}{%- endfor -%}
    {%- do kanon._scratch_delete(t.evals, '_k_batch = ' ~ batch ~ ' and _k_passes = 1') -%}
    {%- do kanon._records_evaluate_batch(plan, search, batch, '_k_node in (' ~ (nodes | join(', ')) ~ ')', false, at_most=nodes | length) -%}
  {%- endif -%}
{% endmacro %}

{#- After a classifying batch: each evaluated node's state, then what monotonicity tells of the
    nodes above those that pass and below those that fail. -#}
{% macro _records_propagate(plan, search, batch) %}
  {%- set t = search.tables -%}
  {%- do kanon._records_mark_evaluated(t, batch, plan) -%}
  {%- if search.monotone -%}
    {%- do kanon._scratch_update(t.lattice, {'_k_state': "'pass'"}, '_k_state is null and exists (select 1 from ' ~ t.evals
        ~ ' as _k_e where _k_e._k_batch = ' ~ batch ~ ' and _k_e._k_passes = 1 and ' ~ kanon._records_at_least(plan, t.lattice, '_k_e') ~ ')') -%}
  {%- endif -%}
{% endmacro %}

{#- The nodes of a batch marked evaluated, with their state; with `plan` (a classifying batch), in
    the same statement, every unsettled node below one of its failing nodes marked failing (a
    statement costs more than its rows on most warehouses). The condition first narrows the lattice
    to the nodes it may change: Postgres joins every row it keeps with the batch in a nested loop.
    A batch's nodes are never evaluated before it. -#}
{% macro _records_mark_evaluated(t, batch, plan=none) %}
  {%- set evaluated = 'select _k_node from ' ~ t.evals ~ ' where _k_batch = ' ~ batch -%}
  {%- set where = '_k_node in (' ~ evaluated ~ ')' -%}
  {%- if plan is not none -%}
    {%- set where = '_k_evaluated = 0 and (_k_state is null or ' ~ where ~ ') and exists (select 1 from ' ~ t.evals
        ~ ' as _k_e where _k_e._k_batch = ' ~ batch ~ ' and (_k_e._k_node = ' ~ t.lattice ~ '._k_node or (' ~ t.lattice
        ~ '._k_state is null and _k_e._k_fails_below = 1 and ' ~ kanon._records_at_least(plan, '_k_e', t.lattice) ~ ')))' -%}
  {%- endif -%}
  {%- do kanon._scratch_update(t.lattice, {
        '_k_evaluated': 'case when _k_node in (' ~ evaluated ~ ') then 1 else _k_evaluated end',
        '_k_state': 'case when _k_node in (' ~ evaluated ~ " and _k_passes = 1) then 'pass' else 'fail' end"}, where) -%}
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
    + case _k_b._k_l{{ qi.index }} when 0 then 0{% for level in range(1, qi.depth + 1) %} when {{ level }} then _k_c._k_q{{ qi.index }}_nue{{ level }}{% endfor %} end
    {%- endfor %} as _k_nue,
    _k_c._k_nue_top
    {%- endif %}
  from _k_batch as _k_b
  cross join {{ search.tables.classes }} as _k_c
),
{{ kanon._records_judge_ctes(plan, '_k_at', keys) }}
{%- endmacro %}

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
  {%- set suppressed, thin = '_k_nodes._k_suppressed_records', '_k_nodes._k_too_small_records + _k_nodes._k_missing_records' %}
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
  cast(_k_nodes._k_dm_kept + _k_nodes._k_suppressed_records * {{ search.records_in }} as {{ decimal }}) as _k_loss_discernibility,
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

{#- The first row of `sql` over the evals table as a dict (lower-case column names; the levels
    as a list 'levels'), or none. -#}
{% macro _records_node_row(search, sql) %}
  {%- set result = run_query(sql) -%}
  {%- if result.rows | length == 0 -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set row = {} -%}
  {%- for name in result.column_names -%}
    {%- set value = result.rows[0][loop.index0] -%}
    {%- do row.update({name | lower: value}) -%}
  {%- endfor -%}
  {{ return(row) }}
{% endmacro %}

{#- The levels of a node row, in the order the quasi-identifiers come. -#}
{% macro _records_node_levels(plan, node) %}
  {%- set levels = [] -%}
  {%- for qi in plan.qis -%}{%- do levels.append(node['_k_l' ~ qi.index] | int) -%}{%- endfor -%}
  {{ return(levels) }}
{% endmacro %}

{#- A batch's columns from the lattice: the node, its height, levels and word masks. -#}
{% macro _records_batch_columns(plan, search) %}
  {%- set columns = ['_k_node', '_k_height'] + kanon._records_levels(plan) -%}
  {%- for word in search.words -%}{%- do columns.append('_k_m' ~ loop.index0) -%}{%- endfor -%}
  {{ return(columns | join(', ')) }}
{% endmacro %}

{#- `_k_l0 = a and _k_l1 = b ...`: the lattice condition selecting one node by its levels. -#}
{% macro _records_node_condition(plan, levels) %}
  {%- set parts = [] -%}
  {%- for qi in plan.qis -%}{%- do parts.append('_k_l' ~ qi.index ~ ' = ' ~ levels[loop.index0]) -%}{%- endfor -%}
  {{ return('(' ~ (parts | join(' and ')) ~ ')') }}
{% endmacro %}

