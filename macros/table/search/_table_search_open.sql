{#-
  Step 2 of a round of the table search (_table_search): which hidden cells are still open (on
  no protecting cube). Where the search tries every cube at once (no first-try bounds:
  _table_first_try_bounds), steps 2 and 3 are one query: every flagged cell's cheapest cube. A
  cube of hidden cells costs nothing (a cell newly hidden costs its count, at least k) and moves
  as the open-cell check's would (a publishable cell's bounds are a secondary's), so a cell whose
  cheapest cube costs nothing is protected, and the others are the open cells, with their picks:
  one staged query a round instead of two.

  reads   `numbered` (_k_open, _k_status), `anc`<i>
  writes  `open_cells` (bounded: the cells still open, then flagged in `numbered`: semi-joins) or
          `picks` (one try: every flagged cell's cheapest cube, those costing nothing unflagged);
          the state's open_picks (the picks step 4 applies)
  returns how many cells are open
-#}
{% macro _table_search_open(plan, search) %}
  {%- set t = search.tables -%}
  {%- if search.bounds is none -%}
    {%- do kanon._search_replace(t.picks, kanon._table_picks_sql(dict(search.cubes, target='true', limit=none,
        moves=none)), true) -%}
    {%- do kanon._scratch_update(t.numbered, {'_k_open': '0'}, '_k_open = 1 and (' ~ search.nodes ~ ') in (select '
        ~ kanon._table_target_columns(search.n, '_k_q') ~ ' from ' ~ t.picks ~ ' as _k_q where _k_q._k_cost = 0)') -%}
    {%- do kanon._scratch_analyze(t.numbered) -%}
    {%- do search.update({'open_picks': '(select * from ' ~ t.picks ~ ' where _k_cost > 0)'}) -%}
    {{ return(kanon._search_value('select count(*) from ' ~ t.numbered ~ ' where _k_open = 1') | int) }}
  {%- endif -%}
  {%- do kanon._search_replace(t.open_cells, kanon._table_open_cells_sql(dict(search.cubes, target='_k_t._k_open = 1',
      limit=search.bounds.limit, moves=search.bounds.moves)), true) -%}
  {%- do kanon._scratch_update(t.numbered, {'_k_open': '0'}, '_k_open = 1') -%}
  {%- do kanon._scratch_update(t.numbered, {'_k_open': '1'}, '(' ~ search.nodes ~ ') in (select ' ~ search.nodes
      ~ ' from ' ~ t.open_cells ~ ')') -%}
  {%- do kanon._scratch_analyze(t.numbered) -%}
  {%- do search.update({'open_picks': t.picks}) -%}
  {{ return(kanon._search_value('select count(*) from ' ~ t.open_cells) | int) }}
{% endmacro %}
