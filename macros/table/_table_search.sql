{#-
  Complementary suppression of kanon.release_table, run by the macro when the model compiles (as
  the record search is, ADR 8): the warehouse does the work on temporary tables (private to the
  session); the macro only steers, a few set-based queries a round whatever the table's size.

  A hidden cell is exactly determined by the published totals when it lies on no cycle of hidden
  cells (rows and columns as the two sides of a bipartite graph, hidden cells its edges), and by
  its mark's bounds when every cycle through it is pinned against one. The search makes every
  hidden cell lie on a rectangle of hidden cells that can move (_table_rectangles), the
  hypercube method of tau-ARGUS and sdcTable in two dimensions:

    1. the primaries are hidden: 0 < count < k (and zeros with hide_zeros), totals included.
       Every cell gets its row and column as whole numbers in the search's order (_k_ri, _k_ci:
       level first, categories before totals; then labels by their bytes, NULL first);
    2. the open cells: hidden cells on no protecting rectangle (_table_open_cells_sql; a cell
       once protected stays so, since hiding more never unprotects, so only the open ones are
       checked again);
    3. every open cell picks, in one query, its cheapest protecting rectangle: its other corners
       hidden already or published with a count of at least k, costing the sum of the counts it
       newly hides; ties go to the rectangle whose other row, then other column, comes first.
       Candidates are bounded (`_table_pick_limit` per line, see _table_picks_sql); a cell that
       finds none among them is tried again with every cell of its row and column; one that
       finds none at all refuses the release (check table_search);
    4. the picks are applied in the order of their open cells (count, then row, then column).
       A pick waits for the next round when an earlier pick newly hides a cell in its open
       cell's row or column, or one of the cells it would newly hide: that earlier pick may
       protect it, or make another rectangle cheaper, as hiding one cell at a time would. The
       first pick never waits, so every round protects at least one cell. After
       `_table_conflict_rounds` rounds every pick is applied at once (which protects every
       open cell that has one), so a search takes at most that many rounds plus one;
    5. again from 2 until no hidden cell is open.

  The result is the cheapest-first greedy of one cell at a time in most tables (it differs only
  where an earlier pick would have changed a later one through a cell outside that one's lines,
  or past the conflict rounds); it is sound, not minimal (an LP/MIP could hide less). Non-additive
  totals are treated as additive here: the pattern is one that would also protect an additive
  table, and kanon_tools.attack audits it against the inequalities that do hold.

  The secondaries stay in a temporary table (`secondaries` in the result, its name) that the long
  form joins: the model's SQL runs in the same session right after it compiles (dbt compiles and
  runs a node on one connection, and closes it after the node, which drops the table).

  Returns {secondaries: that table's name, cells, primary, secondary, published, non_additive
  (totals), rounds, refused (none or {check, reason}), seconds}.
-#}
{% macro _table_search(plan) %}
  {%- set started = modules.datetime.datetime.now() -%}
  {%- set suffix = local_md5(model.unique_id ~ invocation_id)[:10] -%}
  {%- set t = '_kanon_tt_' ~ suffix -%}
  {%- set picks = '_kanon_tp_' ~ suffix -%}
  {%- set hidden_now = '_kanon_tn_' ~ suffix -%}
  {%- set open_cells = '_kanon_to_' ~ suffix -%}
  {%- set secondaries = '_kanon_ts_' ~ suffix -%}
  {%- set k = plan.k -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set limit = kanon._table_pick_limit() -%}
  {%- for name in [t, picks, hidden_now, open_cells, secondaries] -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}
  {%- set cells_sql -%}
    with {{ kanon._table_cells_ctes(plan) }}
    select
      _k_table.*,
      {{ kanon._table_line_numbers('_k_table') }},
      case when _k_table._k_status = 'published' then 0 else 1 end as _k_open
    from _k_table
  {%- endset -%}
  {%- do run_query('create temporary table ' ~ t ~ ' as ' ~ cells_sql) -%}

  {%- set ns = namespace(done=false, refused=none, rounds=0) -%}
  {%- for _ in range(kanon._table_conflict_rounds() + 2) if not ns.done -%}
    {#- 2. the open cells that are still open (in a table of their own, then flagged: semi-joins) -#}
    {%- do run_query('drop table if exists ' ~ open_cells) -%}
    {%- do run_query('create temporary table ' ~ open_cells ~ ' as ' ~ kanon._table_open_cells_sql(t, '_k_p._k_open = 1', k, lo, limit)) -%}
    {%- do run_query('update ' ~ t ~ ' set _k_open = 0 where _k_open = 1') -%}
    {%- do run_query('update ' ~ t ~ ' set _k_open = 1 where (_k_ri, _k_ci) in (select _k_ri, _k_ci from ' ~ open_cells ~ ')') -%}
    {%- set open = run_query('select count(*) from ' ~ open_cells).rows[0][0] | int -%}
    {%- if open == 0 -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {#- 3. every open cell's cheapest rectangle: among the bounded candidates, then among all -#}
      {%- do run_query('drop table if exists ' ~ picks) -%}
      {%- do run_query('create temporary table ' ~ picks ~ ' as ' ~ kanon._table_picks_sql(t, 'true', k, lo, limit)) -%}
      {%- set unpicked_sql = 'not exists (select 1 from ' ~ picks ~ ' as _k_q where _k_q._k_ri = _k_p._k_ri and _k_q._k_ci = _k_p._k_ci)' -%}
      {%- set unpicked_count = 'select count(*) from ' ~ t ~ ' as _k_p where _k_p._k_open = 1 and ' ~ unpicked_sql -%}
      {%- set unpicked = run_query(unpicked_count).rows[0][0] | int -%}
      {%- if unpicked > 0 -%}
        {%- do run_query('insert into ' ~ picks ~ ' ' ~ kanon._table_picks_sql(t, unpicked_sql, k, lo, none)) -%}
        {%- set unpicked = run_query(unpicked_count).rows[0][0] | int -%}
      {%- endif -%}
      {%- if unpicked > 0 -%}
        {%- set ns.refused = {'check': 'table_search', 'reason': unpicked ~ " hidden cell(s) lie on no rectangle of cells that could hide them "
            ~ "(every other corner is a shown zero, or the rectangle is pinned by the marks' bounds); no pattern of "
            ~ "rectangles protects them, so the table cannot be published with its totals"} -%}
        {%- set ns.done = true -%}
      {%- else -%}
        {#- 4. apply the picks that need not wait -#}
        {%- do run_query('drop table if exists ' ~ hidden_now) -%}
        {%- do run_query('create temporary table ' ~ hidden_now ~ ' as '
            ~ kanon._table_accepted_sql(t, picks, ns.rounds >= kanon._table_conflict_rounds())) -%}
        {%- do run_query('update ' ~ t ~ " set _k_status = 'secondary' where _k_status = 'published' and (_k_ri, _k_ci) in (select _k_ri, _k_ci from "
            ~ hidden_now ~ ')') -%}
        {%- set ns.rounds = ns.rounds + 1 -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not ns.done -%}
    {#- cannot happen (the last round applies every pick), but a search that did not finish publishes nothing -#}
    {%- set ns.refused = {'check': 'table_search', 'reason': 'the search did not protect every hidden cell within '
        ~ (kanon._table_conflict_rounds() + 2) ~ ' rounds'} -%}
  {%- endif -%}

  {%- do run_query('create temporary table ' ~ secondaries ~ ' as select _k_rl, _k_r, _k_cl, _k_c from ' ~ t
      ~ " where _k_status = 'secondary'") -%}
  {%- set counts = run_query("select count(*), "
      ~ "coalesce(sum(case when _k_status = 'primary' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when _k_status = 'secondary' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when not _k_additive then 1 else 0 end), 0) from " ~ t).rows[0] -%}
  {%- for name in [t, picks, hidden_now, open_cells] -%}
    {%- do run_query('drop table if exists ' ~ name) -%}
  {%- endfor -%}
  {{ return({'secondaries': secondaries, 'cells': counts[0] | int, 'primary': counts[1] | int, 'secondary': counts[2] | int,
      'published': counts[3] | int, 'non_additive': counts[4] | int, 'rounds': ns.rounds, 'refused': ns.refused,
      'seconds': ((modules.datetime.datetime.now() - started).total_seconds() | round(3))}) }}
{% endmacro %}

{#- How many candidates per line a pick tries first (_table_picks_sql), and how many hidden cells
    per line a protection check tries first (_table_protected_sql). Eight: in the benchmark's
    1,000 x 100 table nearly every cell is settled within them, and a line no longer than
    this is never pruned (tables of up to eight rows and columns search exactly as unbounded). -#}
{% macro _table_pick_limit() %}
  {{ return(8) }}
{% endmacro %}

{#- Rounds in which picks wait for earlier ones (step 4 of _table_search) before one that applies
    them all: the search's rounds are bounded whatever the table (a column of a thousand open
    cells would otherwise take a thousand rounds). -#}
{% macro _table_conflict_rounds() %}
  {{ return(16) }}
{% endmacro %}

{#- A select of every open cell's cheapest protecting rectangle (one row per open cell meeting
    `target`, a condition on `_k_p`): the open cell (_k_ri, _k_ci, _k_n), its corner in the same
    row (_k_ar, _k_ac), in the same column (_k_br, _k_bc), the opposite corner being (_k_br,
    _k_ac), and the cost. The other corners are hidden or published with at least k people.

    With `limit`, a corner in p's row is one of the row's first `limit` hidden cells (by column)
    or of its `limit` cheapest publishable ones (by count, then column), and likewise in p's
    column: at most 4 x limit^2 rectangles per open cell, where all of them would be a row times
    a column. The cheapest rectangle may lie outside them, so pruning can cost more secondaries;
    it never costs soundness (every rectangle tried is checked whole), and a cell with none among
    them is tried again without the limit before the search refuses. -#}
{% macro _table_picks_sql(t, target, k, lo, limit) -%}
  with _k_e as (
    select
      _k_x.*,
      case when _k_x._k_status = 'published' then _k_x._k_n else 0 end as _k_cost,
      case when _k_x._k_status = 'published' then 1 else 0 end as _k_new
    from {{ t }} as _k_x
    where _k_x._k_status <> 'published' or _k_x._k_n >= {{ k }}
  ),

  _k_ea as (
    select
      _k_e.*,
      row_number() over (partition by _k_e._k_ri, _k_e._k_new order by _k_e._k_cost, _k_e._k_ci) as _k_rank
    from _k_e
  ),

  _k_targets as (
    select _k_p.* from {{ t }} as _k_p
    where _k_p._k_open = 1 and ({{ target }})
  ),

  _k_eb as (
    select
      _k_e.*,
      row_number() over (partition by _k_e._k_ci, _k_e._k_new order by _k_e._k_cost, _k_e._k_ri) as _k_rank
    from _k_e
  ),

  _k_rectangles as (
    select
      _k_p._k_ri,
      _k_p._k_ci,
      _k_p._k_n,
      _k_a._k_ri as _k_ar,
      _k_a._k_ci as _k_ac,
      _k_b._k_ri as _k_br,
      _k_b._k_ci as _k_bc,
      _k_a._k_cost + _k_b._k_cost + _k_d._k_cost as _k_cost,
      row_number() over (
        partition by _k_p._k_ri, _k_p._k_ci
        order by _k_a._k_cost + _k_b._k_cost + _k_d._k_cost, _k_b._k_ri, _k_a._k_ci
      ) as _k_pick
    {{ kanon._table_rectangle_join('_k_targets', '_k_ea', '_k_eb', '_k_e', '_k_rank', '_k_rank', limit, k, lo) }}
  )

  select _k_ri, _k_ci, _k_n, _k_ar, _k_ac, _k_br, _k_bc, _k_cost
  from _k_rectangles
  where _k_pick = 1
{%- endmacro %}

{#- A select of the cells (_k_ri, _k_ci) the applied picks newly hide: with `all_picks`, every
    pick's; else only those of picks that need not wait (step 4 of _table_search): no pick
    earlier in the order (open cell's count, row, column) newly hides a cell in this pick's open
    cell's row or column, or one of this pick's own new cells. -#}
{% macro _table_accepted_sql(t, picks, all_picks) -%}
  with _k_ordered as (
    select
      _k_q.*,
      row_number() over (order by _k_q._k_n, _k_q._k_ri, _k_q._k_ci) as _k_order
    from {{ picks }} as _k_q
  ),

  _k_corners as (
    select _k_order, _k_ar as _k_ri, _k_ac as _k_ci from _k_ordered
    union all
    select _k_order, _k_br as _k_ri, _k_bc as _k_ci from _k_ordered
    union all
    select _k_order, _k_br as _k_ri, _k_ac as _k_ci from _k_ordered
  ),

  _k_new as (
    select
      _k_corners._k_order,
      _k_corners._k_ri,
      _k_corners._k_ci
    from _k_corners
    inner join {{ t }} as _k_x
      on _k_x._k_ri = _k_corners._k_ri and _k_x._k_ci = _k_corners._k_ci and _k_x._k_status = 'published'
  ),

  _k_waiting as (
    {%- if all_picks %}
    select _k_order from _k_ordered where 1 = 0
    {%- else %}
    select _k_o._k_order from _k_ordered as _k_o
    inner join _k_new as _k_x on _k_x._k_ri = _k_o._k_ri and _k_x._k_order < _k_o._k_order
    union
    select _k_o._k_order from _k_ordered as _k_o
    inner join _k_new as _k_x on _k_x._k_ci = _k_o._k_ci and _k_x._k_order < _k_o._k_order
    union
    select _k_y._k_order from _k_new as _k_y
    inner join _k_new as _k_x
      on _k_x._k_ri = _k_y._k_ri and _k_x._k_ci = _k_y._k_ci and _k_x._k_order < _k_y._k_order
    {%- endif %}
  )

  select distinct _k_new._k_ri, _k_new._k_ci
  from _k_new
  where not exists (select 1 from _k_waiting where _k_waiting._k_order = _k_new._k_order)
{%- endmacro %}

{#- `_k_ri, _k_ci`: the rows and columns of the cells of `relation` as whole numbers, in the
    search's order (level first: categories before totals; then labels by their bytes, NULL
    first). The search and the gate's no_exact_disclosure number cells the same way. -#}
{% macro _table_line_numbers(relation) -%}
  cast(dense_rank() over (order by {{ relation }}._k_rl, {{ kanon._text_order(relation ~ '._k_r') }}) as {{ dbt.type_int() }}) as _k_ri,
  cast(dense_rank() over (order by {{ relation }}._k_cl, {{ kanon._text_order(relation ~ '._k_c') }}) as {{ dbt.type_int() }}) as _k_ci
{%- endmacro %}
