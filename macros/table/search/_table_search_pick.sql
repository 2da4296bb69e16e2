{#-
  Step 3 of a round of the table search (_table_search): every open cell's cheapest cube, among
  the bounded candidates first (one try: picked in step 2 already), then, for the cells that
  found none, among every cube. A cube found without bounds in an earlier round, for a cell
  whose pick waited, still protects it (cells only ever become hidden, and a hidden cell's
  bounds are those of the publishable cell it was): taken again rather than searched again for,
  since the search without bounds is the round's costliest query.

  reads   `numbered` (_k_open), `anc`<i>, `beyond` (the cubes found without bounds before)
  writes  `picks` (one row per open cell: its cheapest cube), `beyond` (created, then added to);
          the state's cached
  returns how many open cells have no pick: none of them lies on a cube that could protect it
-#}
{% macro _table_search_pick(plan, search) %}
  {%- set t = search.tables -%}
  {%- set picked = [] -%}
  {%- for i in range(search.n) -%}{%- do picked.append('_k_q._k_p' ~ i ~ ' = _k_t._k_d' ~ i) -%}{%- endfor -%}
  {%- set unpicked_sql = 'not exists (select 1 from ' ~ t.picks ~ ' as _k_q where ' ~ (picked | join(' and ')) ~ ')' -%}
  {%- set unpicked_count = 'select count(*) from ' ~ t.numbered ~ ' as _k_t where _k_t._k_open = 1 and '
      ~ unpicked_sql -%}
  {%- set from_beyond = 'insert into ' ~ t.picks ~ ' select _k_q.* from ' ~ t.beyond ~ ' as _k_q inner join '
      ~ t.numbered ~ ' as _k_t on ' ~ (picked | join(' and ')) ~ ' where _k_t._k_open = 1 and ' ~ unpicked_sql -%}
  {%- if search.bounds -%}
    {%- do kanon._search_replace(t.picks, kanon._table_picks_sql(dict(search.cubes, target='true',
        limit=search.bounds.limit, moves=search.bounds.moves)), true) -%}
    {%- do kanon._scratch_analyze(t.picks) -%}
  {%- endif -%}
  {%- set unpicked = kanon._search_value(unpicked_count) | int -%}
  {%- if unpicked > 0 and search.cached -%}
    {%- do run_query(from_beyond) -%}
    {%- set unpicked = kanon._search_value(unpicked_count) | int -%}
  {%- endif -%}
  {#- (without bounds, the first try was the only one) -#}
  {%- if unpicked > 0 and search.bounds -%}
    {%- set found = kanon._table_picks_sql(dict(search.cubes, target=unpicked_sql, limit=none, moves=none)) -%}
    {%- if search.cached -%}
      {%- do kanon._scratch_insert(t.beyond, found, true) -%}
    {%- else -%}
      {%- do kanon._scratch_create(t.beyond, found, true) -%}
      {%- do search.update({'cached': true}) -%}
    {%- endif -%}
    {%- do run_query(from_beyond) -%}
    {%- set unpicked = kanon._search_value(unpicked_count) | int -%}
  {%- endif -%}
  {{ return(unpicked) }}
{% endmacro %}

{#- A select of every open cell's cheapest protecting cube (one row per open cell of `cells`
    meeting `target`, a condition on `_k_t`): the cell (_k_p<i>, _k_pn), its moves (_k_a<i>,
    _k_b<i>) and the cost, the counts it newly hides; ties by the moves' leaves, dimension by
    dimension. `arg_dict` holds _table_cubes_sql's arguments (engine/_table_cubes.sql), with
    `target` instead of `targets` and `may_hide`. -#}
{% macro _table_picks_sql(arg_dict) -%}
  {%- set n = arg_dict.n -%}
  {%- set order = [] -%}
  {%- for i in range(n) -%}{%- do order.append('_k_c._k_a' ~ i) -%}{%- do order.append('_k_c._k_b' ~ i) -%}
  {%- endfor -%}
  {%- set open_targets = '(select * from ' ~ arg_dict.cells ~ ' as _k_t where _k_t._k_open = 1 and ('
      ~ arg_dict.target ~ '))' -%}
  with _k_cubes as (
    {{ kanon._table_cubes_sql(dict(arg_dict, targets=open_targets, may_hide=true)) }}
  ),

  _k_ranked as (
    select
      _k_c.*,
      row_number() over (partition by {{ kanon._table_target_columns(n, '_k_c') }} order by _k_c._k_cost
        {{- ', ' }}{{ order | join(', ') }}) as _k_pick
    from _k_cubes as _k_c
  )

  select * from _k_ranked where _k_pick = 1
{%- endmacro %}
