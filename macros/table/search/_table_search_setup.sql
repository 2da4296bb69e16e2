{#-
  The set-up of the table search (_table_search): the session, and the cells numbered.

  reads   the relation's events and the hierarchies (_table_search_refusal, _table_cells_ctes)
  writes  the scratch tables `cells` (every cell of the table with its count and status),
          `numbered` (the same cells numbered by node, with _k_open: 1 for a hidden cell not yet
          known to be protected) and `anc`<i> (every leaf's path to the top along dimension i),
          after dropping what a crashed search of the model left
  returns the search's state, which every later phase reads and updates: n, lo, glued, nodes
          (the cells' node columns, as SQL), tables, scratch (what the search drops at the end:
          all its tables but `secondaries`), started, refused, built, bounds (the first try's,
          _table_first_try_bounds), rounds, cached (whether `beyond` holds cubes found without
          bounds), done, open_picks (the picks step 4 applies)
-#}
{% macro _table_search_setup(plan) %}
  {#- the release's planner settings (Postgres: no nested loops over misestimated CTEs), for the
      compile's transaction, and statistics of every temporary table once it is filled -#}
  {%- set session = kanon._search_session({'numbered': '_kanon_tt_', 'cells': '_kanon_tc_', 'anc': '_kanon_ta_',
      'picks': '_kanon_tp_', 'hidden_now': '_kanon_tn_', 'open_cells': '_kanon_to_', 'secondaries': '_kanon_ts_',
      'beyond': '_kanon_tb_'}, kanon.release_planner_settings(local=true)) -%}
  {%- set tables = session.tables -%}
  {#- a prefix: the tables are anc ~ 0, anc ~ 1, ... -#}
  {%- do tables.update({'anc': tables.anc ~ '_'}) -%}
  {%- set n = plan.dims | length -%}
  {%- set nodes = [] -%}
  {%- for i in range(n) -%}{%- do nodes.append('_k_d' ~ i) -%}{%- endfor -%}
  {%- set scratch = [tables.numbered, tables.cells, tables.picks, tables.hidden_now, tables.open_cells, tables.beyond] -%}
  {%- for i in range(n) -%}{%- do scratch.append(tables.anc ~ i) -%}{%- endfor -%}
  {%- do kanon._search_drop(scratch + [tables.secondaries]) -%}
  {#- a linked table's glued dimension, where no move reaches a root from one side only (_table_linked) -#}
  {%- set s = {'n': n, 'lo': 0 if plan.hide_zeros else 1, 'glued': plan.linked.glued if plan.get('linked') else none,
      'nodes': nodes | join(', '), 'tables': tables, 'scratch': scratch, 'started': session.started,
      'refused': kanon._table_search_refusal(plan), 'built': false, 'bounds': none, 'rounds': 0, 'cached': false,
      'done': false, 'open_picks': none} -%}
  {%- if s.refused is none -%}
    {%- do kanon._scratch_create(tables.cells, 'with ' ~ kanon._table_cells_ctes(plan) ~ ' select * from _k_table') -%}
    {%- do kanon._table_numbered_tables(tables.cells, kanon._table_tops(plan), tables.numbered, tables.anc,
        ", case when _k_status = 'published' then 0 else 1 end as _k_open") -%}
    {%- do s.update({'built': true, 'bounds': kanon._table_first_try_bounds(n, tables.anc)}) -%}
  {%- else -%}
    {%- do s.update({'done': true}) -%}
  {%- endif -%}
  {{ return(s) }}
{% endmacro %}

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
