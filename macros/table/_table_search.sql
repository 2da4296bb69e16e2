{#-
  Complementary suppression of kanon.release_table, run by the macro when the model compiles (as
  the record search is, ADR 8): the warehouse does the work on scratch tables (_scratch_table:
  private to the session, or on Spark to the audit schema); the macro only steers, a few
  set-based queries a round whatever the table's size.

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

  Each step is a macro of its own in macros/table/search/, whose header says what it reads and
  writes; this one only runs the rounds. The state they share is the dict the set-up returns
  (`search`, as the record search's: the scratch tables' names, the first try's bounds, the
  rounds, the refusal):

    set-up  _table_search_setup   the session (_search_session: scratch names, the planner
                                  settings, the timer), the cells counted and numbered (1)
    2       _table_search_open    the open cells (2 and 3 in one query when tried once)
    3       _table_search_pick    every open cell's cheapest cube
    4       _table_search_apply   the picks that need not wait, applied
    end     _table_search_report  the secondaries kept, the counts, the scratch tables dropped

  Naming: a cell's node along dimension i is _k_d<i> (its level _k_l<i>, its key _k_k<i>); an
  open cell a cube is sought for, the target, is _k_p<i> (its count _k_pn); a move along i runs
  from leaf _k_a<i> to leaf (or 0: the top) _k_b<i>; the scratch tables are `numbered` (_kanon_tt_:
  the cells numbered, with _k_open), `cells` (_kanon_tc_), `anc`<i> (_kanon_ta_: every leaf's
  path to the top), `picks` (_kanon_tp_), `open_cells` (_kanon_to_), `hidden_now` (_kanon_tn_),
  `beyond` (_kanon_tb_: cubes found without bounds) and `secondaries` (_kanon_ts_).

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
  {%- set search = kanon._table_search_setup(plan) -%}
  {#- a noisy table (docs/reference/noise.md) is protected by the perturbation of every cell and
      total, not by secondaries: its primaries are hidden, and no cube is sought -#}
  {%- if plan.get('noise') is not none -%}{%- do search.update({'done': true}) -%}{%- endif -%}
  {%- for _ in range(kanon._table_conflict_rounds() + 2) if not search.done -%}
    {%- set open = kanon._table_search_open(plan, search) -%}
    {%- do log('kanon table search, round ' ~ (search.rounds + 1) ~ ': ' ~ open ~ ' open cell(s)') -%}
    {%- if open == 0 -%}
      {%- do search.update({'done': true}) -%}
    {%- else -%}
      {%- set unpicked = kanon._table_search_pick(plan, search) -%}
      {%- if unpicked > 0 -%}
        {%- do search.update({'done': true,
            'refused': {'check': 'table_search', 'reason': unpicked ~ " hidden cell(s) lie on no cube of cells "
            ~ "that could hide them (every other corner is a shown zero, or the cube is pinned by the marks' bounds"
            ~ (", moving by the protection of " ~ plan.protection if plan.protection is not none else "")
            ~ "); no pattern of cubes protects them, so the table cannot be published with its totals"}}) -%}
      {%- else -%}
        {%- do kanon._table_search_apply(plan, search) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not search.done -%}
    {#- cannot happen (the last round applies every pick), but a search that did not finish publishes nothing -#}
    {%- do search.update({'refused': {'check': 'table_search',
        'reason': 'the search did not protect every hidden cell within '
        ~ (kanon._table_conflict_rounds() + 2) ~ ' rounds'}}) -%}
  {%- endif -%}
  {{ return(kanon._table_search_report(plan, search)) }}
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
