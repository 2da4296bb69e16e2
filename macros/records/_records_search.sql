{#-
  The lattice search of kanon.release_records, run by the macro when the model compiles: the
  warehouse does the counting, the macro only steers. Three scratch tables (_scratch_table: private
  to the session, or on Spark to the audit schema; dropped at the end): the level-0 class table
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

    1. descend   (entropy, height) from the most general node, greedily: evaluate the node's direct
                 predecessors and step to the one of least loss that satisfies the model, until
                 none does. Its loss bounds the optimum from above.
    2. classify  only nodes whose lower bound is within the best loss found matter. Entropy and
                 height: top-down, every such node of unknown state at the highest height (a node
                 that fails there settles everything below it). Discernibility: binary search over
                 heights, every node of unknown state at the middle height.
    3. minimize  the least loss among satisfying nodes: a satisfying node not yet evaluated is
                 skipped when its lower bound, or the bound an evaluated node below it gives (every
                 record's loss only grows with generalization; a suppressed record costs at least
                 k, or its loss at the node below), exceeds the best found; else evaluated, lowest
                 first. Ties: least height, then the smallest levels in the order the columns come.
    4. report    the chosen node's figures, and for each quasi-identifier how many suppressed
                 records one more step on it would rescue.

  No node satisfying the model within the budget refuses the release (reported from the most
  general node: how far it is from k, or from l).
-#}
{% macro _records_search(plan) %}
  {%- set scan_started = modules.datetime.datetime.now() -%}
  {%- set suffix = kanon._scratch_suffix() -%}
  {%- set t = {'classes': kanon._scratch_name('_kanon_rc_' ~ suffix), 'lattice': kanon._scratch_name('_kanon_rl_' ~ suffix),
      'evals': kanon._scratch_name('_kanon_re_' ~ suffix), 'packed': kanon._scratch_name('_kanon_rw_' ~ suffix)} -%}
  {%- set ql = kanon._records_levels(plan) -%}
  {%- set settings = kanon._records_search_settings() -%}
  {%- if settings -%}{%- do run_query(settings) -%}{%- endif -%}
  {%- do kanon._records_drop_temporary(t) -%}
  {#- in stages on Spark: as one statement there, every label table's CTE scanned the relation again -#}
  {%- do kanon._scratch_create(t.classes, kanon._records_class_table_sql(plan), in_stages=true) -%}
  {%- set word_bits = var('kanon_records_word_bits', 62) -%}
  {%- do kanon._check_whole_number(word_bits, 'the var kanon_records_word_bits', kanon._who('kanon.release_records'), minimum=1, maximum=62) -%}
  {%- set words = kanon._records_pack_classes(plan, t, word_bits) -%}
  {#- timed apart: the one scan into the class table, and the search on it -#}
  {%- set started = modules.datetime.datetime.now() -%}

  {#- what goes in, and the budget in the suppression unit -#}
  {%- set totals = run_query('select coalesce(sum(_k_n), 0), '
      ~ ('count(distinct _k_person)' if plan.privacy_unit is not none else 'coalesce(sum(_k_n), 0)')
      ~ ', count(*) from ' ~ t.classes).rows[0] -%}
  {%- set records_in = totals[0] | int -%}
  {%- set people_in = totals[1] | int -%}
  {%- set total_unit = people_in if plan.suppression_unit == 'people' else records_in -%}
  {%- set limit = (plan.max_suppression * total_unit + 1e-9) | round(0, 'floor') | int -%}
  {%- set monotone = not (plan.l is not none and plan.diversity == 'entropy' and limit > 0) -%}
  {#- A batch groups (its nodes x the class table) rows at once: at most kanon_records_batch_rows
      of them (default 20 million), so that memory stays bounded however large the table. -#}
  {%- set class_rows = totals[2] | int -%}
  {%- set batch_rows = var('kanon_records_batch_rows', 20000000) -%}
  {%- do kanon._check_whole_number(batch_rows, 'the var kanon_records_batch_rows', kanon._who('kanon.release_records'), minimum=1) -%}
  {%- set search = {'records_in': records_in, 'people_in': people_in, 'limit': limit, 'monotone': monotone,
      'tables': t, 'words': words,
      'chunk': [1, batch_rows // [class_rows, 1] | max] | max} -%}

  {%- if records_in == 0 -%}
    {#- nothing to generalize: the finest node, with nothing suppressed -#}
    {%- do kanon._records_drop_temporary(t) -%}
    {%- set node = {'_k_node': 0, '_k_height': 0, '_k_suppressed_records': 0, '_k_missing_records': 0, '_k_loss_height': 0,
        '_k_loss_discernibility': 0, '_k_loss_non_uniform_entropy': 0} -%}
    {%- for qi in plan.qis -%}{%- do node.update({'_k_l' ~ qi.index: 0}) -%}{%- endfor -%}
    {%- set empty = {'classes': 0, 'records': 0, 'people': 0} -%}
    {{ return(dict(search, node=node, details={'kept': empty, 'too_small': empty, 'not_diverse': empty, 'missing': empty},
        rescue=[], refused=none, nodes_evaluated=0, search_seconds=0, scan_seconds=0)) }}
  {%- endif -%}

  {#- the lattice: every combination of levels, its height, a node number and its loss's lower bound -#}
  {%- set lower_bound = kanon._records_lower_bound(plan, search) -%}
  {%- set lattice_sql -%}
    select
      {%- for qi in plan.qis %}
      _k_t{{ qi.index }}._k_l{{ qi.index }},
      {%- endfor %}
      {{ ql | join(' + ') }} as _k_height,
      {%- set ns = namespace(radix=1, terms=[]) %}
      {%- for qi in plan.qis | reverse %}
      {%- do ns.terms.append(('_k_l' ~ qi.index) ~ ' * ' ~ ns.radix) %}
      {%- set ns.radix = ns.radix * (qi.depth + 1) %}
      {%- endfor %}
      {{ ns.terms | join(' + ') }} as _k_node,
      {{ lower_bound }} as _k_lb,
      {%- for mask in kanon._records_word_masks(plan, search.words) %}
      {{ mask }},
      {%- endfor %}
      cast(null as {{ dbt.type_string() }}) as _k_state,
      0 as _k_evaluated
    from
      {%- for qi in plan.qis %}
      (values {% for level in range(qi.depth + 1) %}({{ level }}){% if not loop.last %}, {% endif %}{% endfor %}) as _k_t{{ qi.index }} (_k_l{{ qi.index }}){% if not loop.last %} cross join{% endif %}
      {%- endfor %}
  {%- endset -%}
  {%- do kanon._scratch_create(t.lattice, lattice_sql) -%}
  {%- do kanon._scratch_analyze(t.lattice) -%}

  {%- set loss_column = '_k_loss_' ~ plan.loss -%}
  {%- set order = loss_column ~ ', _k_height, ' ~ (ql | join(', ')) -%}
  {%- set top_down = plan.loss != 'discernibility' -%}
  {%- set ns = namespace(batch=0, created=false, done=not top_down, levels=[]) -%}
  {#- 1. descend: from the top, to the best satisfying direct predecessor, while there is one -#}
  {%- for qi in plan.qis -%}{%- do ns.levels.append(qi.depth) -%}{%- endfor -%}
  {%- for step in range(plan.max_height + 1) if not ns.done -%}
    {%- set steps = [ns.levels] if step == 0 else kanon._records_predecessors(plan, ns.levels) -%}
    {%- set among = [] -%}
    {%- for levels in steps -%}{%- do among.append(kanon._records_node_condition(plan, levels)) -%}{%- endfor -%}
    {%- set among = '(' ~ (among | join(' or ')) ~ ')' if among else '1 = 0' -%}
    {%- set ns.batch = ns.batch + 1 -%}
    {%- do kanon._records_evaluate_batch(plan, search, ns.batch, '_k_evaluated = 0 and ' ~ among, not ns.created, at_most=steps | length) -%}
    {%- set ns.created = true -%}
    {%- do kanon._records_propagate(plan, search, ns.batch) -%}
    {%- set next = kanon._records_node_row(search, 'select * from ' ~ t.evals ~ ' where _k_passes = 1 and ' ~ among ~ ' order by ' ~ order ~ ' limit 1') -%}
    {%- if next is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set ns.levels = kanon._records_node_levels(plan, next) -%}
    {%- endif -%}
  {%- endfor -%}

  {#- 2. classify -#}
  {%- set ns.done = false -%}
  {%- for _ in range(plan.max_height + 2) if not ns.done -%}
    {%- set unknown = '_k_state is null' ~ kanon._records_within_best(plan, search, loss_column) -%}
    {%- if top_down -%}
      {%- set height = run_query('select max(_k_height) from ' ~ t.lattice ~ ' where ' ~ unknown).rows[0][0] -%}
    {%- else -%}
      {#- the height of unknown nodes nearest the middle of their span (each batch settles one) -#}
      {%- set middle = run_query('select _k_height from ' ~ t.lattice ~ ' where ' ~ unknown ~ ' group by _k_height order by abs(2 * _k_height - '
          ~ '(select min(_k_height) + max(_k_height) from ' ~ t.lattice ~ ' where ' ~ unknown ~ ')), _k_height limit 1').rows -%}
      {%- set height = middle[0][0] if middle else none -%}
    {%- endif -%}
    {%- if height is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set ns.batch = ns.batch + 1 -%}
      {%- do kanon._records_evaluate_batch(plan, search, ns.batch, unknown ~ ' and _k_height = ' ~ (height | int), not ns.created, lean=top_down) -%}
      {%- set ns.created = true -%}
      {%- if top_down -%}
        {#- most of these nodes fail and need no loss: the few that pass are evaluated again, in full -#}
        {%- do kanon._records_complete_batch(plan, search, ns.batch) -%}
      {%- endif -%}
      {%- do kanon._records_propagate(plan, search, ns.batch) -%}
    {%- endif -%}
  {%- endfor -%}

  {#- 3. minimize -#}
  {%- set ns.done = plan.loss == 'height' -%}
  {%- for _ in range(plan.max_height + 2) if not ns.done -%}
    {%- set best = run_query('select min(' ~ loss_column ~ ') from ' ~ t.evals ~ ' where _k_passes = 1').rows[0][0] -%}
    {%- set open = "_k_state = 'pass' and _k_evaluated = 0" ~ kanon._records_within_best(plan, search, loss_column) ~ ((' and not exists (select 1 from ' ~ t.evals ~ ' as _k_e where _k_e._k_bound > ' ~ best
        ~ ' and ' ~ kanon._records_at_least(plan, t.lattice, '_k_e') ~ ')') if best is not none else '') -%}
    {%- set lowest = run_query('select min(_k_height) from ' ~ t.lattice ~ ' where ' ~ open).rows[0][0] -%}
    {%- if lowest is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set ns.batch = ns.batch + 1 -%}
      {%- do kanon._records_evaluate_batch(plan, search, ns.batch, open ~ ' and _k_height = ' ~ lowest, not ns.created) -%}
      {%- set ns.created = true -%}
      {%- do kanon._records_mark_evaluated(t, ns.batch) -%}
    {%- endif -%}
  {%- endfor -%}

  {#- 4. the chosen node (by height: the lowest satisfying node, evaluated if it was inferred) -#}
  {%- if plan.loss == 'height' -%}
    {%- set chosen = run_query('select _k_node, _k_evaluated from ' ~ t.lattice ~ " where _k_state = 'pass' order by _k_height, " ~ (ql | join(', ')) ~ ' limit 1').rows -%}
    {%- if chosen and chosen[0][1] | int == 0 -%}
      {%- set ns.batch = ns.batch + 1 -%}
      {%- do kanon._records_evaluate_batch(plan, search, ns.batch, '_k_node = ' ~ chosen[0][0], not ns.created, at_most=1) -%}
      {%- set ns.created = true -%}
    {%- endif -%}
  {%- endif -%}
  {%- set evaluated = run_query('select count(*) from ' ~ t.evals).rows[0][0] | int -%}
  {%- set best = kanon._records_node_row(search, 'select * from ' ~ t.evals ~ ' where _k_passes = 1 order by ' ~ order ~ ' limit 1') -%}
  {%- set refused = none -%}
  {%- if best is none -%}
    {#- nothing satisfies the model: say how far the most general node is from it -#}
    {%- set top = kanon._records_node_row(search, 'select * from ' ~ t.evals ~ ' where _k_height = ' ~ plan.max_height) -%}
    {%- if top is none -%}
      {%- set ns.batch = ns.batch + 1 -%}
      {%- do kanon._records_evaluate_batch(plan, search, ns.batch, '_k_height = ' ~ plan.max_height, not ns.created) -%}
      {%- set top = kanon._records_node_row(search, 'select * from ' ~ t.evals ~ ' where _k_height = ' ~ plan.max_height) -%}
    {%- endif -%}
    {%- set refused = kanon._records_refusal(plan, search, top) -%}
    {%- set best = top -%}
  {%- endif -%}
  {%- set details = kanon._records_node_details(plan, search, best) -%}
  {%- set rescue = [] if refused is not none else kanon._records_rescue(plan, search, best) -%}
  {%- do kanon._records_drop_temporary(t) -%}
  {%- set seconds = (modules.datetime.datetime.now() - started).total_seconds() -%}
  {{ return(dict(search, node=best, details=details, rescue=rescue, refused=refused, nodes_evaluated=evaluated,
      search_seconds=(seconds | round(3)), scan_seconds=((started - scan_started).total_seconds() | round(3)))) }}
{% endmacro %}

{#- The lattice's `_k_lb`: a lower bound on a node's loss, known without evaluating it. Non-uniform
    entropy: the loss with nothing suppressed beyond the records suppressed up front (whose loss
    is the top's whatever the node), from one pass over the class table; a suppressed record
    costs its loss at the top, which no node's loss of it exceeds. Height: the height.
    Discernibility: none (0). -#}
{% macro _records_lower_bound(plan, search) %}
  {%- set double = kanon._records_double() -%}
  {%- if plan.loss == 'height' -%}
    {{ return('cast(' ~ (kanon._records_levels(plan) | join(' + ')) ~ ' as ' ~ double ~ ')') }}
  {%- elif plan.loss == 'discernibility' -%}
    {{ return('cast(0 as ' ~ double ~ ')') }}
  {%- endif -%}
  {%- set sums = ['coalesce(sum(case when _k_missing = 1 then _k_n * _k_nue_top else 0 end), 0)'] -%}
  {%- for qi in plan.qis -%}
    {%- for level in range(1, qi.depth + 1) -%}
      {%- do sums.append('coalesce(sum(case when _k_missing = 0 then _k_n * _k_q' ~ qi.index ~ '_nue' ~ level ~ ' else 0 end), 0)') -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set row = run_query('select ' ~ (sums | join(', ')) ~ ' from ' ~ search.tables.classes).rows[0] -%}
  {%- set ns = namespace(at=1) -%}
  {%- set terms = [(row[0] | float) ~ ''] -%}
  {%- for qi in plan.qis -%}
    {%- set cases = [] -%}
    {%- for level in range(1, qi.depth + 1) -%}
      {%- do cases.append('when ' ~ level ~ ' then ' ~ (row[ns.at] | float)) -%}
      {%- set ns.at = ns.at + 1 -%}
    {%- endfor -%}
    {%- do terms.append('case _k_l' ~ qi.index ~ ' ' ~ (cases | join(' ')) ~ ' else 0 end') -%}
  {%- endfor -%}
  {{ return('cast(' ~ (terms | join(' + ')) ~ ' as ' ~ double ~ ')') }}
{% endmacro %}

{#- ` and _k_lb <= <the best loss found>` (with room for rounding), or '' while none is found or
    the metric has no bound: which nodes can still hold the optimum. -#}
{% macro _records_within_best(plan, search, loss_column) %}
  {%- if plan.loss == 'discernibility' -%}
    {{ return('') }}
  {%- endif -%}
  {%- set best = run_query('select min(' ~ loss_column ~ ') from ' ~ search.tables.evals ~ ' where _k_passes = 1').rows[0][0] -%}
  {%- if best is none -%}
    {{ return('') }}
  {%- endif -%}
  {%- set best = best | float -%}
  {{ return(' and _k_lb <= ' ~ (best + 1e-6 * ([best | abs, 1.0] | max))) }}
{% endmacro %}

{#- The levels of a node's direct predecessors (one column one level finer), as lists. -#}
{% macro _records_predecessors(plan, levels) %}
  {%- set out = [] -%}
  {%- for qi in plan.qis if levels[qi.index] > 0 -%}
    {%- set down = levels | list -%}
    {%- do down.pop(qi.index) -%}
    {%- do down.insert(qi.index, levels[qi.index] - 1) -%}
    {%- do out.append(down) -%}
  {%- endfor -%}
  {{ return(out) }}
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

{% macro _records_drop_temporary(t) %}
  {%- for name in [t.evals, t.lattice, t.classes, t.packed] | unique -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}
{% endmacro %}

{#- Evaluates the lattice nodes matching `condition` into the evals table (creating it the first
    time), as batch number `batch`. `lean`: whether each node passes, not its loss (left NULL).
    `at_most`: how many nodes match at most, when the caller knows (no count is queried then, if
    they fit in one chunk). -#}
{% macro _records_evaluate_batch(plan, search, batch, condition, create, lean=false, at_most=none) %}
  {%- set t = search.tables -%}
  {%- if at_most is not none and at_most <= search.chunk -%}
    {%- set nodes = at_most -%}
  {%- else -%}
    {%- set nodes = run_query('select count(*) from ' ~ t.lattice ~ ' where ' ~ condition).rows[0][0] | int -%}
  {%- endif -%}
  {#- in chunks of search.chunk nodes (by node number), all of them one batch -#}
  {%- for chunk in range(((nodes + search.chunk - 1) // search.chunk) if nodes > 0 else 1) -%}
    {%- set chosen = condition if nodes <= search.chunk else condition ~ ' and _k_node in (select _k_node from (select _k_node, row_number() over (order by _k_node) as _k_rank from '
        ~ t.lattice ~ ' where ' ~ condition ~ ') as _k_ranked where floor((_k_rank - 1) / ' ~ search.chunk ~ ') = ' ~ chunk ~ ')' -%}
    {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ', ' ~ batch ~ ' as _k_batch from ' ~ t.lattice ~ ' where ' ~ chosen -%}
    {%- set sql = kanon._records_evaluate_sql(plan, search, batch_sql, lean) -%}
    {%- if create and loop.first -%}
      {%- do kanon._scratch_create(t.evals, sql) -%}
    {%- else -%}
      {%- do run_query('insert into ' ~ t.evals ~ ' ' ~ sql) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- the propagation joins the lattice with the batch: planned from the table's real size -#}
  {%- do kanon._scratch_analyze(t.evals) -%}
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
    weights; lean: no loss), _k_cls, _k_judged,` : the classes of every node of the batch, judged. -#}
{% macro _records_at_ctes(plan, search, batch_sql, keys, lean=false) %}
with
_k_batch as ({{ batch_sql }}),
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

{#- Every level's label code of a class, packed once into whole words (_k_w<j>), so that a class's
    labels at a node are one bitwise `and` per word with the node's mask, not a CASE per column per
    class and node (measured: 2.4 times faster on Adult's largest batch on DuckDB). A field per
    column and level, as wide as its codes need (a level of one label needs none), laid into words
    of at most `word_bits` bits in order (a field wider than that gets a word of its own; no field
    exceeds 62 bits, since no level has more labels than records). A node's mask keeps the field of
    each column's level at the node. The class table is copied once, with only what the search
    reads (no label text, no codes: the words hold them), and dropped; `tables.classes` then names
    the copy. Returns the words: [[{qi, level, offset, bits}, ...], ...]. -#}
{% macro _records_pack_classes(plan, t, word_bits=62) %}
  {%- set sizes = [] -%}
  {%- for qi in plan.qis -%}{%- for level in range(qi.depth + 1) -%}
    {%- do sizes.append('max(_k_q' ~ qi.index ~ '_c' ~ level ~ ') + 1') -%}
  {%- endfor -%}{%- endfor -%}
  {%- set row = run_query('select ' ~ (sizes | join(', ')) ~ ' from ' ~ t.classes).rows[0] -%}
  {%- set ns = namespace(at=0, offset=0) -%}
  {%- set words = [] -%}
  {%- for qi in plan.qis -%}{%- for level in range(qi.depth + 1) -%}
    {%- set bits = (((row[ns.at] or 1) | int) - 1).bit_length() -%}
    {%- set ns.at = ns.at + 1 -%}
    {%- if bits > 0 -%}
      {%- if not words or ns.offset + bits > word_bits -%}
        {%- do words.append([]) -%}
        {%- set ns.offset = 0 -%}
      {%- endif -%}
      {%- do words[-1].append({'qi': qi.index, 'level': level, 'offset': ns.offset, 'bits': bits}) -%}
      {%- set ns.offset = ns.offset + bits -%}
    {%- endif -%}
  {%- endfor -%}{%- endfor -%}
  {%- set columns = ['_k_missing', '_k_n'] + (['_k_person'] if plan.privacy_unit is not none else []) -%}
  {%- for name in plan.sensitive -%}{%- do columns.append('_k_s' ~ loop.index0) -%}{%- endfor -%}
  {%- for qi in plan.qis -%}{%- for level in range(1, qi.depth + 1) -%}
    {%- do columns.append('_k_q' ~ qi.index ~ '_nue' ~ level) -%}
  {%- endfor -%}{%- endfor -%}
  {%- do columns.append('_k_nue_top') -%}
  {%- for word in words -%}
    {%- set terms = [] -%}
    {%- for field in word -%}
      {%- do terms.append('cast(_k_q' ~ field.qi ~ '_c' ~ field.level ~ ' as ' ~ dbt.type_bigint() ~ ') * ' ~ (2 ** field.offset)) -%}
    {%- endfor -%}
    {%- do columns.append((terms | join(' + ')) ~ ' as _k_w' ~ loop.index0) -%}
  {%- endfor -%}
  {%- do kanon._scratch_create(t.packed, 'select ' ~ (columns | join(', ')) ~ ' from ' ~ t.classes) -%}
  {%- do run_query('drop table if exists ' ~ t.classes) -%}
  {%- do t.update({'classes': t.packed}) -%}
  {%- do kanon._scratch_analyze(t.classes) -%}
  {{ return(words) }}
{% endmacro %}

{#- A node's mask for each packed word (from its levels, _k_l<i>): [`<expr> as _k_m<j>`, ...]. The
    lattice stores them, computed once per node: in the evaluation's SQL, Postgres would compute
    them again for every class and node (it flattens the subquery into the join). -#}
{% macro _records_word_masks(plan, words) %}
  {%- set masks = [] -%}
  {%- for word in words -%}
    {%- set by_qi = {} -%}
    {%- for field in word -%}
      {%- do by_qi.setdefault(field.qi, []).append('when ' ~ field.level ~ ' then ' ~ (((2 ** field.bits) - 1) * (2 ** field.offset))) -%}
    {%- endfor -%}
    {%- set terms = [] -%}
    {%- for qi, whens in by_qi.items() -%}
      {%- do terms.append('cast(case _k_l' ~ qi ~ ' ' ~ (whens | join(' ')) ~ ' else 0 end as ' ~ dbt.type_bigint() ~ ')') -%}
    {%- endfor -%}
    {%- do masks.append((terms | join(' + ')) ~ ' as _k_m' ~ loop.index0) -%}
  {%- endfor -%}
  {{ return(masks) }}
{% endmacro %}

{#- One row per node of `batch_sql` (_k_node, _k_height, _k_l<i>, _k_batch): its classes and
    suppressed records by fate, whether it passes, its loss under every metric and the bound on
    the loss of every node above it. -#}
{% macro _records_evaluate_sql(plan, search, batch_sql, lean=false) %}
  {%- set decimal = 'decimal(38, 6)' -%}
  {%- set keys = kanon._records_node_keys(plan, search) -%}
  {%- set people = plan.suppression_unit == 'people' and plan.privacy_unit is not none -%}
{{ kanon._records_at_ctes(plan, search, batch_sql, keys, lean) }}
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

{#- The chosen node's classes, records and people by fate (kept, too_small, not_diverse,
    missing): {fate: {classes, records, people}}. -#}
{% macro _records_node_details(plan, search, node) %}
  {%- set keys = kanon._records_node_keys(plan, search) -%}
  {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ' from ' ~ search.tables.lattice
      ~ ' where _k_node = ' ~ node._k_node -%}
  {%- set sql -%}
    {{ kanon._records_at_ctes(plan, search, batch_sql, keys) }}
    _k_fates as (
      select _k_fate, count(*) as _k_classes, sum(_k_records) as _k_records from _k_judged group by _k_fate
    ),
    _k_people as (
      select _k_judged._k_fate, {{ 'count(distinct _k_at._k_person)' if plan.privacy_unit is not none else 'sum(_k_at._k_n)' }} as _k_people
      from _k_at
      inner join _k_judged on
        {%- for key in keys %} {% if not loop.first %}and {% endif %}_k_judged.{{ key }} = _k_at.{{ key }}{%- endfor %}
      group by _k_judged._k_fate
    )
    select _k_fates._k_fate, _k_fates._k_classes, _k_fates._k_records, _k_people._k_people
    from _k_fates
    inner join _k_people on _k_people._k_fate = _k_fates._k_fate
  {%- endset -%}
  {%- set details = {} -%}
  {%- for fate in ['kept', 'too_small', 'not_diverse', 'missing'] -%}
    {%- do details.update({fate: {'classes': 0, 'records': 0, 'people': 0}}) -%}
  {%- endfor -%}
  {%- for row in run_query(sql).rows -%}
    {%- do details.update({row[0]: {'classes': row[1] | int, 'records': row[2] | int, 'people': row[3] | int}}) -%}
  {%- endfor -%}
  {{ return(details) }}
{% endmacro %}

{#- For each quasi-identifier below its top level: how many of the node's suppressed records one
    more step on it alone would keep. [{column, records}], largest first. -#}
{% macro _records_rescue(plan, search, node) %}
  {%- set levels = kanon._records_node_levels(plan, node) -%}
  {%- set steps = [] -%}
  {%- for qi in plan.qis if levels[qi.index] < qi.depth -%}
    {%- set up = levels | list -%}
    {%- do up.pop(qi.index) -%}
    {%- do up.insert(qi.index, levels[qi.index] + 1) -%}
    {%- do steps.append((qi.name, up)) -%}
  {%- endfor -%}
  {%- if not steps or (node._k_suppressed_records | int) == 0 -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set conditions = [] -%}
  {%- for name, up in steps -%}{%- do conditions.append(kanon._records_node_condition(plan, up)) -%}{%- endfor -%}
  {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ', 0 as _k_batch from '
      ~ search.tables.lattice ~ ' where ' ~ (conditions | join(' or ')) -%}
  {%- set result = run_query(kanon._records_evaluate_sql(plan, search, batch_sql)) -%}
  {%- set by_levels = {} -%}
  {%- for row in result.rows -%}
    {%- set levels_of = [] -%}
    {%- for qi in plan.qis -%}{%- do levels_of.append(row[result.column_names.index('_k_l' ~ qi.index)] | int) -%}{%- endfor -%}
    {%- do by_levels.update({levels_of | join(','): row[result.column_names.index('_k_suppressed_records')] | int}) -%}
  {%- endfor -%}
  {%- set rescue = [] -%}
  {%- for name, up in steps -%}
    {%- do rescue.append({'column': name, 'records': (node._k_suppressed_records | int) - by_levels.get(up | join(','), node._k_suppressed_records | int)}) -%}
  {%- endfor -%}
  {{ return(rescue | sort(attribute='records', reverse=true)) }}
{% endmacro %}

{#- Why no node satisfies the model, from the most general node: {check, reason}. Counts only. -#}
{% macro _records_refusal(plan, search, top) %}
  {%- set budget = search.limit ~ ' ' ~ plan.suppression_unit ~ ' (max_suppression=' ~ plan.max_suppression ~ ')' -%}
  {%- set missing = top._k_missing_records | int -%}
  {%- set small = top._k_too_small_records | int -%}
  {%- set thin = top._k_not_diverse_records | int -%}
  {%- if missing > search.limit -%}
    {%- set check = 'missing_values' -%}
    {%- set reason = missing ~ " record(s) are suppressed up front (a NULL privacy unit" ~ (", or a missing quasi-identifier under missing_value_policy='suppress'" if plan.missing_value_policy == 'suppress' else '')
        ~ "), more than the suppression budget of " ~ budget -%}
  {%- elif small + missing > search.limit or plan.l is none -%}
    {%- set check = 'too_small' -%}
    {%- set reason = "no generalization reaches k=" ~ plan.k ~ " within the suppression budget of " ~ budget ~ ": even the most general node leaves "
        ~ small ~ " record(s) in " ~ top._k_classes_too_small ~ " class(es) below k" ~ ((" and " ~ missing ~ " suppressed up front") if missing else '') -%}
  {%- else -%}
    {%- set check = 'not_diverse' -%}
    {%- set reason = "no generalization reaches l=" ~ plan.l ~ " (" ~ plan.diversity ~ " l-diversity) within the suppression budget of " ~ budget
        ~ ": even the most general node leaves " ~ thin ~ " record(s) in " ~ top._k_classes_not_diverse ~ " class(es) that are not " ~ plan.l ~ "-diverse"
        ~ ((" and " ~ small ~ " below k") if small else '') -%}
  {%- endif -%}
  {{ return({'check': check, 'reason': reason}) }}
{% endmacro %}
