{#-
  Complementary suppression of kanon.release_table, run by the macro when the model compiles (as
  the record search is, ADR 8): the warehouse does the work on scratch tables (_scratch_table: private to the
  session, or on Spark to the audit schema); the macro only steers, a few set-based queries a round whatever the table's size.

  A hidden cell is exactly determined by the published totals when no change of the hidden
  cells that keeps every total moves it. The search makes every hidden cell lie on a cube of
  hidden cells that can move (_table_cubes: one move per dimension along its hierarchy; in two
  flat dimensions a rectangle), the hypercube method of tau-ARGUS and sdcTable:

    1. the primaries are hidden: 0 < count < k (and zeros with hide_zeros), totals included.
       Every cell gets its node in each dimension as a whole number (_table_numbered_ctes);
    2. the open cells: hidden cells on no protecting cube (_table_open_cells_sql; a cell once
       protected stays so, since hiding more never unprotects, so only open ones are checked
       again);
    3. every open cell picks, in one query, its cheapest protecting cube: its cells hidden
       already or published with a count of at least k, costing the sum of the counts it newly
       hides; ties go to the moves with the smallest leaves, dimension by dimension. Candidates
       are bounded (_table_pick_limit leaves per line, _table_move_limit moves per dimension);
       a cell that finds none among them is tried again without bounds; one that finds none at
       all refuses the release (check table_search);
    4. the picks are applied in the order of their open cells (count, then nodes). A pick
       waits for the next round when an earlier pick newly hides a cell on one of its open
       cell's lines or one of the cells it would newly hide: that earlier pick may protect it,
       or make another cube cheaper, as hiding one cell at a time would. The first pick never
       waits, so every round protects at least one cell. After `_table_conflict_rounds` rounds
       every pick is applied at once, so a search takes at most that many rounds plus one;
    5. again from 2 until no hidden cell is open.
  A table tried once (_table_first_try_bounds: the bounds could prune nothing, or its cubes
  through a cell are few) makes 2 and 3 one query a round: every still-flagged cell's cheapest
  cube, those costing nothing (all their cells hidden already) protecting their cells.

  It is sound, not minimal (an LP/MIP could hide less). Non-additive lines bound the moves
  (_table_cubes); kanon_tools.attack audits the result against the inequalities that hold.

  The secondaries stay in a scratch table (`secondaries` in the result, its name) that the long
  form joins: the model's SQL runs in the same session right after it compiles (dbt compiles and
  runs a node on one connection, and closes it after the node, which drops the table).

  Returns {secondaries: that table's name, cells, primary, secondary, published, non_additive
  (totals), rounds, refused (none or {check, reason}), bounds (the first try's {limit, moves},
  none when the table is too small for them to prune: _table_first_try_bounds), seconds}.
-#}
{% macro _table_search(plan) %}
  {%- set started = modules.datetime.datetime.now() -%}
  {%- set suffix = kanon._scratch_suffix() -%}
  {%- set t = kanon._scratch_name('_kanon_tt_' ~ suffix) -%}
  {%- set cells = kanon._scratch_name('_kanon_tc_' ~ suffix) -%}
  {#- a prefix: the tables are anc ~ 0, anc ~ 1, ... -#}
  {%- set anc = kanon._scratch_name('_kanon_ta_' ~ suffix ~ '_') -%}
  {%- set picks = kanon._scratch_name('_kanon_tp_' ~ suffix) -%}
  {%- set hidden_now = kanon._scratch_name('_kanon_tn_' ~ suffix) -%}
  {%- set open_cells = kanon._scratch_name('_kanon_to_' ~ suffix) -%}
  {%- set secondaries = kanon._scratch_name('_kanon_ts_' ~ suffix) -%}
  {%- set n = plan.dims | length -%}
  {%- set tops = kanon._table_tops(plan) -%}
  {#- a linked table's glued dimension, where no move reaches a root from one side only (_table_linked) -#}
  {%- set glued = plan.linked.glued if plan.get('linked') else none -%}
  {%- set k = plan.k -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set nodes = [] -%}
  {%- for i in range(n) -%}{%- do nodes.append('_k_d' ~ i) -%}{%- endfor -%}
  {%- set nodes = nodes | join(', ') -%}
  {%- set beyond = kanon._scratch_name('_kanon_tb_' ~ suffix) -%}
  {%- set scratch = [t, cells, picks, hidden_now, open_cells, beyond] -%}
  {%- for i in range(n) -%}{%- do scratch.append(anc ~ i) -%}{%- endfor -%}
  {%- for name in scratch + [secondaries] -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}

  {#- the release's planner settings (Postgres: no nested loops over misestimated CTEs), for the
      compile's transaction, and statistics of every temporary table once it is filled -#}
  {%- set settings = kanon.release_planner_settings(local=true) -%}
  {%- if settings -%}{%- do run_query(settings) -%}{%- endif -%}
  {%- set ns = namespace(done=false, refused=kanon._table_search_refusal(plan), rounds=0, built=false, cached=false, bounds=none) -%}
  {%- if ns.refused is none -%}
    {%- set ns.built = true -%}
    {%- do kanon._scratch_create(cells, 'with ' ~ kanon._table_cells_ctes(plan) ~ ' select * from _k_table') -%}
    {%- do kanon._table_numbered_tables(cells, tops, t, anc, ", case when _k_status = 'published' then 0 else 1 end as _k_open") -%}
    {%- set ns.bounds = kanon._table_first_try_bounds(n, anc) -%}
  {%- else -%}
    {%- set ns.done = true -%}
  {%- endif -%}
  {#- the first try's bounds; none: one try, against every cube -#}
  {%- set limit = ns.bounds.limit if ns.bounds else none -%}
  {%- set moves = ns.bounds.moves if ns.bounds else none -%}

  {%- for _ in range(kanon._table_conflict_rounds() + 2) if not ns.done -%}
    {%- set picked = [] -%}
    {%- for i in range(n) -%}{%- do picked.append('_k_q._k_p' ~ i ~ ' = _k_t._k_d' ~ i) -%}{%- endfor -%}
    {%- set unpicked_sql = 'not exists (select 1 from ' ~ picks ~ ' as _k_q where ' ~ (picked | join(' and ')) ~ ')' -%}
    {%- set unpicked_count = 'select count(*) from ' ~ t ~ ' as _k_t where _k_t._k_open = 1 and ' ~ unpicked_sql -%}
    {%- if ns.bounds is none -%}
      {#- 2 and 3 in one query, where the search tries every cube at once (_table_first_try_bounds):
          every flagged cell's cheapest cube. A cube of hidden cells costs nothing (a cell newly
          hidden costs its count, at least k) and moves as the open-cell check's would (a
          publishable cell's bounds are a secondary's), so a cell whose cheapest cube costs
          nothing is protected, and the others are the open cells, with their picks: one
          staged query a round instead of two -#}
      {%- do run_query('drop table if exists ' ~ picks) -%}
      {%- do kanon._scratch_create(picks, kanon._table_picks_sql(n, t, anc, 'true', k, lo, none, none, plan.step, glued), true) -%}
      {%- do kanon._scratch_update(t, {'_k_open': '0'}, '_k_open = 1 and (' ~ nodes ~ ') in (select '
          ~ kanon._table_target_columns(n, '_k_q') ~ ' from ' ~ picks ~ ' as _k_q where _k_q._k_cost = 0)') -%}
      {%- do kanon._scratch_analyze(t) -%}
      {%- set open = run_query('select count(*) from ' ~ t ~ ' where _k_open = 1').rows[0][0] | int -%}
      {%- set open_picks = '(select * from ' ~ picks ~ ' where _k_cost > 0)' -%}
    {%- else -%}
      {#- 2. the open cells that are still open (in a table of their own, then flagged: semi-joins) -#}
      {%- do run_query('drop table if exists ' ~ open_cells) -%}
      {%- do kanon._scratch_create(open_cells, kanon._table_open_cells_sql(n, t, anc, '_k_t._k_open = 1', k, lo, limit, moves, plan.step, glued), true) -%}
      {%- do kanon._scratch_update(t, {'_k_open': '0'}, '_k_open = 1') -%}
      {%- do kanon._scratch_update(t, {'_k_open': '1'}, '(' ~ nodes ~ ') in (select ' ~ nodes ~ ' from ' ~ open_cells ~ ')') -%}
      {%- do kanon._scratch_analyze(t) -%}
      {%- set open = run_query('select count(*) from ' ~ open_cells).rows[0][0] | int -%}
      {%- set open_picks = picks -%}
    {%- endif -%}
    {%- do log('kanon table search, round ' ~ (ns.rounds + 1) ~ ': ' ~ open ~ ' open cell(s)') -%}
    {%- if open == 0 -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {#- 3. every open cell's cheapest cube: among the bounded candidates, then among all (one
          try: picked above) -#}
      {%- if ns.bounds -%}
        {%- do run_query('drop table if exists ' ~ picks) -%}
        {%- do kanon._scratch_create(picks, kanon._table_picks_sql(n, t, anc, 'true', k, lo, limit, moves, plan.step, glued), true) -%}
        {%- do kanon._scratch_analyze(picks) -%}
      {%- endif -%}
      {%- set unpicked = run_query(unpicked_count).rows[0][0] | int -%}
      {#- a cube found without bounds in an earlier round, for a cell whose pick waited, still
          protects it (cells only ever become hidden, and a hidden cell's bounds are those of
          the publishable cell it was): taken again rather than searched again for, since the
          search without bounds is the round's costliest query -#}
      {%- if unpicked > 0 and ns.cached -%}
        {%- do run_query('insert into ' ~ picks ~ ' select _k_q.* from ' ~ beyond ~ ' as _k_q inner join ' ~ t ~ ' as _k_t on '
            ~ (picked | join(' and ')) ~ ' where _k_t._k_open = 1 and ' ~ unpicked_sql) -%}
        {%- set unpicked = run_query(unpicked_count).rows[0][0] | int -%}
      {%- endif -%}
      {#- (without bounds, the first try was the only one) -#}
      {%- if unpicked > 0 and ns.bounds -%}
        {%- set found = kanon._table_picks_sql(n, t, anc, unpicked_sql, k, lo, none, none, plan.step, glued) -%}
        {%- if ns.cached -%}
          {%- do kanon._scratch_insert(beyond, found, true) -%}
        {%- else -%}
          {%- do kanon._scratch_create(beyond, found, true) -%}
          {%- set ns.cached = true -%}
        {%- endif -%}
        {%- do run_query('insert into ' ~ picks ~ ' select _k_q.* from ' ~ beyond ~ ' as _k_q inner join ' ~ t ~ ' as _k_t on '
            ~ (picked | join(' and ')) ~ ' where _k_t._k_open = 1 and ' ~ unpicked_sql) -%}
        {%- set unpicked = run_query(unpicked_count).rows[0][0] | int -%}
      {%- endif -%}
      {%- if unpicked > 0 -%}
        {%- set ns.refused = {'check': 'table_search', 'reason': unpicked ~ " hidden cell(s) lie on no cube of cells that could hide them "
            ~ "(every other corner is a shown zero, or the cube is pinned by the marks' bounds"
            ~ (", moving by the protection of " ~ plan.protection if plan.protection is not none else "") ~ "); no pattern of "
            ~ "cubes protects them, so the table cannot be published with its totals"} -%}
        {%- set ns.done = true -%}
      {%- else -%}
        {#- 4. apply the picks that need not wait -#}
        {%- do run_query('drop table if exists ' ~ hidden_now) -%}
        {%- do kanon._scratch_create(hidden_now,
            kanon._table_accepted_sql(n, t, anc, open_picks, ns.rounds >= kanon._table_conflict_rounds()), true) -%}
        {%- do kanon._scratch_update(t, {'_k_status': "'secondary'"}, "_k_status = 'published' and (" ~ nodes ~ ') in (select '
            ~ nodes ~ ' from ' ~ hidden_now ~ ')') -%}
        {%- set ns.rounds = ns.rounds + 1 -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not ns.done -%}
    {#- cannot happen (the last round applies every pick), but a search that did not finish publishes nothing -#}
    {%- set ns.refused = {'check': 'table_search', 'reason': 'the search did not protect every hidden cell within '
        ~ (kanon._table_conflict_rounds() + 2) ~ ' rounds'} -%}
  {%- endif -%}

  {%- set keys = [] -%}
  {%- for i in range(n) -%}{%- do keys.append('_k_l' ~ i ~ ', _k_k' ~ i) -%}{%- endfor -%}
  {%- set counts = [0, 0, 0, 0, 0] -%}
  {%- if ns.built -%}
    {%- do kanon._scratch_create(secondaries, 'select ' ~ (keys | join(', ')) ~ ' from ' ~ t ~ " where _k_status = 'secondary'") -%}
    {%- set non_additive = [] -%}
    {%- for i in range(n) -%}{%- do non_additive.append('not _k_add' ~ i) -%}{%- endfor -%}
    {%- set counts = run_query("select count(*), "
        ~ "coalesce(sum(case when _k_status = 'primary' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when _k_status = 'secondary' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0), "
        ~ "coalesce(sum(case when " ~ (non_additive | join(' or ')) ~ " then 1 else 0 end), 0) from " ~ t ~ " as _k_t where "
        ~ kanon._table_own_cell(plan, '_k_t')).rows[0] -%}
  {%- else -%}
    {%- do kanon._scratch_create(secondaries, kanon._table_no_cells(n)) -%}
  {%- endif -%}
  {%- for name in scratch -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}
  {{ return({'secondaries': secondaries, 'cells': counts[0] | int, 'primary': counts[1] | int, 'secondary': counts[2] | int,
      'published': counts[3] | int, 'non_additive': counts[4] | int, 'rounds': ns.rounds, 'refused': ns.refused,
      'bounds': ns.bounds,
      'seconds': ((modules.datetime.datetime.now() - started).total_seconds() | round(3))}) }}
{% endmacro %}

{#- A select of no cells, with the key columns of n dimensions (_k_l<i>, _k_k<i>). -#}
{% macro _table_no_cells(n) -%}
  select {% for i in range(n) %}0 as _k_l{{ i }}, cast('' as {{ dbt.type_string() }}) as _k_k{{ i }}{% if not loop.last %}, {% endif %}{% endfor %} where 1 = 0
{%- endmacro %}

{#- Why a table cannot be searched at all, before any cell is counted, or none: an event whose
    value a dimension's hierarchy does not hold (its people would be in no cell, and the totals
    would not be theirs), or a node of a hierarchy with two parents (its lines would not add up). -#}
{% macro _table_search_refusal(plan) %}
  {%- set q = kanon._quote -%}
  {%- for d in plan.dims if d.hierarchy is not none -%}
    {%- set i = plan.dims.index(d) -%}
    {#- a linked table's glued dimension: this table's side of the events (_table_linked) -#}
    {%- set prefix = "'2'" if plan.get('linked') and i == plan.linked.glued else none -%}
    {%- set sql -%}
      with {{ kanon._table_events_cte(plan) }},
      {{ kanon._table_chain_cte(d, i, '_k_events', prefix) }}
      select
        (select count(*) from _k_events
         where {% if prefix %}substr(_k_events._k_v{{ i }}, 1, 1) = {{ prefix }} and {% endif %}not exists (select 1 from _k_chain{{ i }} as _k_c where _k_c._k_leaf = _k_events._k_v{{ i }})),
        (select count(*) from (
          select _k_l, _k_k from (select distinct _k_l, _k_k, _k_pk from _k_chain{{ i }}) as _k_n
          group by _k_l, _k_k having count(*) > 1) as _k_twice)
    {%- endset -%}
    {%- set found = run_query(sql).rows[0] -%}
    {%- if found[0] | int > 0 -%}
      {{ return({'check': 'table_search', 'reason': (found[0] | int) ~ " event(s) have a value of '" ~ d.name ~ "' (NULL included) that its hierarchy "
          ~ d.hierarchy ~ " does not hold: their people would be in no cell and no total; add the values to the hierarchy"}) }}
    {%- endif -%}
    {%- if found[1] | int > 0 -%}
      {{ return({'check': 'table_search', 'reason': (found[1] | int) ~ " label(s) of the hierarchy " ~ d.hierarchy ~ " of '" ~ d.name
          ~ "' have two parents (or a value two rows): a subtotal would not be the sum of its parts; fix the hierarchy (kanon's hierarchy tests find them)"}) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(kanon._table_linked_refusal(plan) if plan.get('linked') else none) }}
{% endmacro %}

{#- How many leaves per line and kind (hidden, publishable) a move may end at in a first try
    (_table_cubes_sql), and so how many hidden leaves per line a protection check tries first.
    Eight: in the benchmark's 1,000 x 100 table nearly every cell is settled within them, and a
    line no longer than this is never pruned. -#}
{% macro _table_pick_limit() %}
  {{ return(8) }}
{% endmacro %}

{#- How many moves per dimension (the cheapest on the cell's own lines) a first try combines into
    cubes: the cubes tried per cell are this to the power of the dimensions, so it falls as they
    grow (2: every move of the bounded leaves; 3: 216 cubes; 4: 256). The picks and the
    protection checks (the search's and the gate's) alike; the cells a first try leaves are
    tried again with every move. -#}
{% macro _table_move_limit(n) %}
  {{ return(none if n <= 2 else (6 if n == 3 else 4)) }}
{% endmacro %}

{#- The bounds of a first try (_table_cubes_sql's `limit` and `moves`) for the table whose leaves'
    paths are `anc`<i>, as {'limit', 'moves'}; none when a first try is not worth making:
    - when the bounds could prune nothing, every dimension having no more leaves than `limit`
      and (where moves are bounded) no more moves through a target than `moves`. A move through
      a target runs from one of its line's leaves to another or to the top, so at most L * (L + 1)
      of them for L leaves;
    - or when every cube is few (_table_one_try_cubes): the cubes through a cell are at most the
      product of those moves per dimension.
    Then a first try tries every cube, and a second try without bounds, which would find nothing
    more, is not made: on small tables a second query of every round, whose planning costs more
    than its rows (DuckDB, Postgres), and a second statement of every step (Spark, where a
    statement costs a fraction of a second, ADR 10). The cheapest cube of all is picked, never a
    costlier one from within the bounds. One query. -#}
{% macro _table_first_try_bounds(n, anc) %}
  {%- set limit, moves = kanon._table_pick_limit(), kanon._table_move_limit(n) -%}
  {%- set leaves = [] -%}
  {%- for i in range(n) -%}{%- do leaves.append('(select count(*) from ' ~ anc ~ i ~ ' where _k_al = 0)') -%}{%- endfor -%}
  {%- set counts = run_query('select ' ~ (leaves | join(', '))).rows[0] -%}
  {%- set ns = namespace(cubes=1, pruned=false) -%}
  {%- for count in counts -%}
    {%- set count = count | int -%}
    {%- set ns.cubes = ns.cubes * count * (count + 1) -%}
    {%- if count > limit or (moves is not none and count * (count + 1) > moves) -%}
      {%- set ns.pruned = true -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'limit': limit, 'moves': moves} if ns.pruned and ns.cubes > kanon._table_one_try_cubes() else none) }}
{% endmacro %}

{#- At most how many cubes through a cell (the product of each dimension's moves, see
    _table_first_try_bounds) for the search to try them all at once: tables of a few leaves
    per dimension, where the bounds would save rows but cost a second query. Three
    dimensions of 5, 2 and 3 leaves: 30 x 6 x 12 = 2,160. -#}
{% macro _table_one_try_cubes() %}
  {{ return(4096) }}
{% endmacro %}

{#- Rounds in which picks wait for earlier ones (step 4 of _table_search) before one that applies
    them all: the search's rounds are bounded whatever the table (a line of a thousand open
    cells would otherwise take a thousand rounds). Four: in a three-way table most picks share a
    line with an earlier one, so a waiting round protected only 1 to 6 % of the open cells at
    the cost of a whole round; with 16 the 30,969-cell benchmark's search took 19 s, with four
    8 s, for 5 % more secondaries (8 % at 101,439 cells; 71 instead of 68 in the 1,000 x 100
    two-way table: BENCHMARKS.md). -#}
{% macro _table_conflict_rounds() %}
  {{ return(4) }}
{% endmacro %}

{#- A select of every open cell's cheapest protecting cube (one row per open cell of `t` meeting
    `target`, a condition on `_k_t`): the cell (_k_p<i>, _k_pn), its moves (_k_a<i>, _k_b<i>) and
    the cost, the counts it newly hides; ties by the moves' leaves, dimension by dimension. -#}
{% macro _table_picks_sql(n, t, anc, target, k, lo, limit, moves, step=1, glued=none) -%}
  {%- set order = [] -%}
  {%- for i in range(n) -%}{%- do order.append('_k_c._k_a' ~ i) -%}{%- do order.append('_k_c._k_b' ~ i) -%}{%- endfor -%}
  with _k_cubes as (
    {{ kanon._table_cubes_sql(n, t, anc, '(select * from ' ~ t ~ ' as _k_t where _k_t._k_open = 1 and (' ~ target ~ '))', k, lo, true, limit, moves, step, glued) }}
  ),

  _k_ranked as (
    select
      _k_c.*,
      row_number() over (partition by {{ kanon._table_target_columns(n, '_k_c') }} order by _k_c._k_cost, {{ order | join(', ') }}) as _k_pick
    from _k_cubes as _k_c
  )

  select * from _k_ranked where _k_pick = 1
{%- endmacro %}

{#- A select of the cells (_k_d<i>) the applied picks newly hide: with `all_picks`, every pick's;
    else only those of picks that need not wait (step 4 of _table_search): no pick earlier in
    the order (open cell's count, then nodes) newly hides a cell on one of this pick's open
    cell's lines (every node but one the same), or one of this pick's own new cells. -#}
{% macro _table_accepted_sql(n, t, anc, picks, all_picks) -%}
  {%- set targets = kanon._table_target_columns(n, '_k_q') -%}
  with _k_ordered as (
    select
      _k_q.*,
      row_number() over (order by _k_q._k_pn, {{ targets }}) as _k_order
    from {{ picks }} as _k_q
  ),

  {% for i in range(n) -%}
  _k_pairs{{ i }} as (
    select {{ kanon._table_target_columns(n, '_k_o') }}, _k_o._k_a{{ i }} as _k_a, _k_o._k_b{{ i }} as _k_b from _k_ordered as _k_o
  ),

  {{ kanon._table_support_ctes(n, i, '_k_pairs' ~ i, anc, '_k_c') }}

  {% endfor -%}
  _k_corners as (
    select
      _k_o._k_order,
      {%- for i in range(n) %}
      _k_s{{ i }}._k_s as _k_d{{ i }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_ordered as _k_o
    {%- for i in range(n) %}
    inner join _k_csup{{ i }} as _k_s{{ i }}
      on {{ kanon._table_same_target(n, '_k_s' ~ i, '_k_o') }} and _k_s{{ i }}._k_a = _k_o._k_a{{ i }} and _k_s{{ i }}._k_b = _k_o._k_b{{ i }}
    {%- endfor %}
  ),

  _k_new as (
    select _k_c.*
    from _k_corners as _k_c
    inner join {{ t }} as _k_x
      on {% for i in range(n) %}_k_x._k_d{{ i }} = _k_c._k_d{{ i }} and {% endfor %}_k_x._k_status = 'published'
  ),

  _k_waiting as (
    {%- if all_picks %}
    select _k_order from _k_ordered where 1 = 0
    {%- else %}
    {%- for i in range(n) %}
    select _k_o._k_order from _k_ordered as _k_o
    inner join _k_new as _k_x
      on {% for j in range(n) if j != i %}_k_x._k_d{{ j }} = _k_o._k_p{{ j }} and {% endfor %}_k_x._k_order < _k_o._k_order
    union
    {%- endfor %}
    select _k_y._k_order from _k_new as _k_y
    inner join _k_new as _k_x
      on {% for i in range(n) %}_k_x._k_d{{ i }} = _k_y._k_d{{ i }} and {% endfor %}_k_x._k_order < _k_y._k_order
    {%- endif %}
  )

  select distinct {% for i in range(n) %}_k_new._k_d{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
  from _k_new
  where not exists (select 1 from _k_waiting where _k_waiting._k_order = _k_new._k_order)
{%- endmacro %}

{#- Temporary tables of the cells of `cells` (a table) numbered by node, `t` (with `extra`
    columns, SQL after the cells' own), and of every leaf's path to the top, `anc`<i>
    (_table_numbered_ctes), with their statistics: what the search and the gate's
    no_exact_disclosure join, many times over, so each is computed once. -#}
{% macro _table_numbered_tables(cells, tops, t, anc, extra='') %}
  {%- set numbered = kanon._table_numbered_ctes(cells, tops, '_k_numbered', '_k_anc') -%}
  {%- do kanon._scratch_create(t, 'with ' ~ numbered ~ ' select _k_numbered.*' ~ extra ~ ' from _k_numbered') -%}
  {%- do kanon._scratch_analyze(t) -%}
  {%- for i in range(tops | length) -%}
    {%- do kanon._scratch_create(anc ~ i, 'with ' ~ numbered ~ ' select * from _k_anc' ~ i) -%}
    {%- do kanon._scratch_analyze(anc ~ i) -%}
  {%- endfor -%}
{% endmacro %}
