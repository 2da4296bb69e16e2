{#-
  The record search's batches (_records_search): every phase evaluates lattice nodes through
  _records_search_batch, a batch at a time, numbered in the order they run. A batch is
  evaluated in chunks of nodes (so that memory stays bounded), each chunk in as many parts as
  the warehouse runs in parallel (_records_search_evaluate.sql has the SQL); what it tells of
  the lattice's other nodes follows by monotonicity.

  reads   the lattice (`lattice`), the packed class table (`classes`)
  writes  each batch into `evals` (created by the first), and into `lattice` each evaluated
          node's state and what monotonicity settles of the others (_records_propagate)
  updates the state's `progress` (the last batch's number; whether `evals` exists)
-#}

{#- Evaluates the lattice nodes matching `condition` as the search's next batch
    (_records_evaluate_batch: `lean`, `at_most`), creating the evals table the first time; returns
    the batch's number. -#}
{% macro _records_search_batch(plan, search, condition, lean=false, at_most=none) %}
  {%- set progress = search.progress -%}
  {%- do progress.update({'batch': progress.batch + 1}) -%}
  {%- do kanon._records_evaluate_batch(plan, search, progress.batch, condition, not progress.created, lean=lean,
      at_most=at_most) -%}
  {%- do progress.update({'created': true}) -%}
  {{ return(progress.batch) }}
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
    {%- for node in run_query('select _k_node from ' ~ t.lattice ~ ' where ' ~ condition
        ~ ' order by _k_node').columns[0].values() -%}
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
  {%- set passing = run_query('select _k_node from ' ~ t.evals ~ ' where _k_batch = ' ~ batch
      ~ ' and _k_passes = 1').columns[0].values() -%}
  {%- if passing | length > 0 -%}
    {%- set nodes = [] -%}
    {%- for node in passing -%}{%- do nodes.append(node | int) -%}{%- endfor -%}
    {%- do kanon._scratch_delete(t.evals, '_k_batch = ' ~ batch ~ ' and _k_passes = 1') -%}
    {%- do kanon._records_evaluate_batch(plan, search, batch, '_k_node in (' ~ (nodes | join(', '))
        ~ ')', false, at_most=nodes | length) -%}
  {%- endif -%}
{% endmacro %}

{#- After a classifying batch: each evaluated node's state, then what monotonicity tells of the
    nodes above those that pass and below those that fail. -#}
{% macro _records_propagate(plan, search, batch) %}
  {%- set t = search.tables -%}
  {%- do kanon._records_mark_evaluated(t, batch, plan) -%}
  {%- if search.monotone -%}
    {%- do kanon._scratch_update(t.lattice, {'_k_state': "'pass'"}, '_k_state is null and exists (select 1 from '
        ~ t.evals ~ ' as _k_e where _k_e._k_batch = ' ~ batch ~ ' and _k_e._k_passes = 1 and '
        ~ kanon._records_at_least(plan, t.lattice, '_k_e') ~ ')') -%}
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
        ~ '._k_state is null and _k_e._k_fails_below = 1 and ' ~ kanon._records_at_least(plan, '_k_e', t.lattice)
        ~ ')))' -%}
  {%- endif -%}
  {%- do kanon._scratch_update(t.lattice, {
        '_k_evaluated': 'case when _k_node in (' ~ evaluated ~ ') then 1 else _k_evaluated end',
        '_k_state': 'case when _k_node in (' ~ evaluated ~ " and _k_passes = 1) then 'pass' else 'fail' end"
      }, where) -%}
{% endmacro %}
