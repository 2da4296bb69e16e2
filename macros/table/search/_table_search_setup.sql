{#-
  The set-up of the table search (_table_search): the session, and the cells numbered.

  reads   the relation's events and the hierarchies (_table_search_refusal, _table_cells_ctes)
  writes  the scratch tables `cells` (every cell of the table with its count and status),
          `numbered` (the same cells numbered by node, with _k_open: 1 for a hidden cell not yet
          known to be protected) and `anc`<i> (every leaf's path to the top along dimension i),
          after dropping what a crashed search of the model left
  returns the search's state, which every later phase reads and updates: n, cubes (the cube
          engine's arguments every query of this table shares: n, cells, anc, k, lo, step,
          glued; engine/_table_cubes.sql), nodes
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
  {%- set scratch = [tables.numbered, tables.cells, tables.picks, tables.hidden_now, tables.open_cells,
                     tables.beyond] -%}
  {%- for i in range(n) -%}{%- do scratch.append(tables.anc ~ i) -%}{%- endfor -%}
  {%- do kanon._search_drop(scratch + [tables.secondaries]) -%}
  {#- glued: a linked table's glued dimension, where no move reaches a root from one side only
      (_table_linked) -#}
  {%- set cubes = {'n': n, 'cells': tables.numbered, 'anc': tables.anc, 'k': plan.k, 'lo': 0 if plan.hide_zeros else 1,
      'step': plan.step, 'glued': plan.linked.glued if plan.get('linked') else none} -%}
  {%- set search = {'n': n, 'cubes': cubes,
      'nodes': nodes | join(', '), 'tables': tables, 'scratch': scratch, 'started': session.started,
      'refused': kanon._table_search_refusal(plan), 'built': false, 'bounds': none, 'rounds': 0, 'cached': false,
      'done': false, 'open_picks': none} -%}
  {%- if search.refused is none -%}
    {%- do kanon._scratch_create(tables.cells, 'with ' ~ kanon._table_cells_ctes(plan) ~ ' select * from _k_table') -%}
    {%- do kanon._table_numbered_tables(tables.cells, kanon._table_tops(plan), tables.numbered, tables.anc,
        ", case when _k_status = 'published' then 0 else 1 end as _k_open") -%}
    {%- do search.update({'built': true, 'bounds': kanon._table_first_try_bounds(n, tables.anc)}) -%}
  {%- else -%}
    {%- do search.update({'done': true}) -%}
  {%- endif -%}
  {{ return(search) }}
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
         where {% if prefix %}substr(_k_events._k_v{{ i }}, 1, 1) = {{ prefix }}
           {{- ' and ' }}{% endif %}not exists (select 1
             {{- ' from ' }}_k_chain{{ i }} as _k_c where _k_c._k_leaf = _k_events._k_v{{ i }})),
        (select count(*) from (
          select _k_l, _k_k from (select distinct _k_l, _k_k, _k_pk from _k_chain{{ i }}) as _k_n
          group by _k_l, _k_k having count(*) > 1) as _k_twice)
    {%- endset -%}
    {%- set found = run_query(sql).rows[0] -%}
    {%- if found[0] | int > 0 -%}
      {{ return({'check': 'table_search', 'reason': (found[0] | int) ~ " event(s) have a value of '" ~ d.name
          ~ "' (NULL included) that its hierarchy "
          ~ d.hierarchy ~ " does not hold: their people would be in no cell and no total; add the values to the"
          ~ " hierarchy"}) }}
    {%- endif -%}
    {%- if found[1] | int > 0 -%}
      {{ return({'check': 'table_search', 'reason': (found[1] | int) ~ " label(s) of the hierarchy " ~ d.hierarchy
          ~ " of '" ~ d.name
          ~ "' have two parents (or a value two rows): a subtotal would not be the sum of its parts; fix the"
          ~ " hierarchy (kanon's hierarchy tests find them)"}) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return(kanon._table_linked_refusal(plan) if plan.get('linked') else none) }}
{% endmacro %}
