{#-
  Complementary suppression of kanon.release_table, run by the macro when the model compiles (as
  the record search is, ADR 8): the warehouse does the work on a temporary table of the cells
  (_table_cells_ctes, private to the session, dropped at the end); the macro only steers.

  A hidden cell is exactly determined by the published totals when it lies on no cycle of hidden
  cells (rows and columns as the two sides of a bipartite graph, hidden cells its edges), and by
  its mark's bounds when every cycle through it is pinned against one. The search makes every
  hidden cell lie on a rectangle of hidden cells that can move (_table_rectangles), the
  hypercube method of tau-ARGUS and sdcTable in two dimensions:

    1. the primaries are hidden: 0 < count < k (and zeros with hide_zeros), totals included;
    2. the first hidden cell on no protecting rectangle, in order of count, then row, then
       column (level first: categories before totals; labels by their bytes, NULL first), gets
       the cheapest protecting rectangle: its other corners hidden already or published with a
       count of at least k, costing the sum of the counts it newly hides; ties go to the
       rectangle whose other row, then other column, comes first in the same order. Its newly
       hidden corners become secondaries;
    3. again from 2 until every hidden cell is on a protecting rectangle.

  Each round protects at least one cell and unprotects none (hidden cells stay hidden), so there
  are at most as many rounds as primaries. A cell with no protecting rectangle at all refuses
  the release (check table_search). Non-additive totals are treated as additive here: the
  pattern is one that would also protect an additive table, and kanon_tools.attack audits it
  against the inequalities that do hold.

  Returns {secondaries: SQL rows for _table_cells_ctes, cells, primary, secondary, published,
  non_additive (totals), rounds, refused (none or {check, reason}), seconds}.
-#}
{% macro _table_search(plan) %}
  {%- set started = modules.datetime.datetime.now() -%}
  {%- set t = '_kanon_tt_' ~ local_md5(model.unique_id ~ invocation_id)[:10] -%}
  {%- set k = plan.k -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set nk = kanon._null_key() -%}
  {%- set order = kanon._text_order -%}
  {%- do run_query('drop table if exists ' ~ t) -%}
  {%- do run_query('create temporary table ' ~ t ~ ' as with ' ~ kanon._table_cells_ctes(plan) ~ ' select * from _k_table') -%}
  {%- set primaries = run_query("select count(*) from " ~ t ~ " where _k_status = 'primary'").rows[0][0] | int -%}

  {%- set keys = '_k_p._k_rl, _k_p._k_r, _k_p._k_cl, _k_p._k_c, case when _k_p._k_r = ' ~ nk ~ ' then 1 else 0 end, case when _k_p._k_c = ' ~ nk ~ ' then 1 else 0 end' -%}
  {%- set ns = namespace(done=false, refused=none, rounds=0) -%}
  {%- for _ in range(primaries + 1) if not ns.done -%}
    {%- set open_sql -%}
      select {{ keys }}
      from {{ t }} as _k_p
      where _k_p._k_status <> 'published' and not {{ kanon._table_protected(t, '_k_p', k, lo) }}
      order by _k_p._k_n, _k_p._k_rl, {{ order('_k_p._k_r') }}, _k_p._k_cl, {{ order('_k_p._k_c') }}
      limit 1
    {%- endset -%}
    {%- set open = run_query(open_sql).rows -%}
    {%- if open | length == 0 -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set p = open[0] -%}
      {%- set rectangle_sql -%}
        select
          {%- for x in ['_k_a', '_k_b', '_k_d'] %}
          {{ x }}._k_rl, {{ x }}._k_r, {{ x }}._k_cl, {{ x }}._k_c,
          case when {{ x }}._k_r = {{ nk }} then 1 else 0 end, case when {{ x }}._k_c = {{ nk }} then 1 else 0 end,
          {%- endfor %}
          {%- for x in ['_k_a', '_k_b', '_k_d'] %}
          case when {{ x }}._k_status = 'published' then {{ x }}._k_n else 0 end{% if not loop.last %} +{% endif %}
          {%- endfor %} as _k_cost
        from {{ t }} as _k_p
        inner join {{ t }} as _k_a on {{ kanon._table_rectangle_where('_k_p') }}
        {{ kanon._table_rectangle_joins(t, '_k_p') }}
        where
          {{ kanon._table_cell_is('_k_p', p) }}
          {%- for x in ['_k_a', '_k_b', '_k_d'] %}
          and ({{ x }}._k_status <> 'published' or {{ x }}._k_n >= {{ k }})
          {%- endfor %}
          and {{ kanon._table_rectangle_moves('_k_p', '_k_a', '_k_b', '_k_d', k, lo) }}
        order by _k_cost, _k_b._k_rl, {{ order('_k_b._k_r') }}, _k_a._k_cl, {{ order('_k_a._k_c') }}
        limit 1
      {%- endset -%}
      {%- set found = run_query(rectangle_sql).rows -%}
      {%- if found | length == 0 -%}
        {%- set ns.refused = {'check': 'table_search', 'reason': "a hidden cell lies on no rectangle of cells that could hide it "
            ~ "(every other corner is a shown zero, or the rectangle is pinned by the marks' bounds); no pattern of "
            ~ "rectangles protects it, so the table cannot be published with its totals"} -%}
        {%- set ns.done = true -%}
      {%- else -%}
        {%- set corners = [] -%}
        {%- for i in range(3) -%}
          {%- do corners.append(kanon._table_cell_is(t, found[0][6 * i:6 * i + 6])) -%}
        {%- endfor -%}
        {%- do run_query("update " ~ t ~ " set _k_status = 'secondary' where _k_status = 'published' and ((" ~ (corners | join(') or (')) ~ "))") -%}
        {%- set ns.rounds = ns.rounds + 1 -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not ns.done -%}
    {#- cannot happen (each round protects a cell), but a search that did not finish publishes nothing -#}
    {%- set ns.refused = {'check': 'table_search', 'reason': 'the search did not protect every hidden cell within ' ~ (primaries + 1) ~ ' rounds'} -%}
  {%- endif -%}

  {%- set secondaries = [] -%}
  {%- for row in run_query('select ' ~ keys ~ ' from ' ~ t ~ " as _k_p where _k_p._k_status = 'secondary' order by 1, 2, 3, 4").rows -%}
    {%- do secondaries.append('(' ~ row[0] ~ ', ' ~ kanon._table_key_sql(row[1], row[4] | int == 1) ~ ', '
        ~ row[2] ~ ', ' ~ kanon._table_key_sql(row[3], row[5] | int == 1) ~ ')') -%}
  {%- endfor -%}
  {%- set counts = run_query("select count(*), "
      ~ "coalesce(sum(case when _k_status = 'primary' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when _k_status = 'secondary' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0), "
      ~ "coalesce(sum(case when not _k_additive then 1 else 0 end), 0) from " ~ t).rows[0] -%}
  {%- do run_query('drop table if exists ' ~ t) -%}
  {{ return({'secondaries': secondaries, 'cells': counts[0] | int, 'primary': counts[1] | int, 'secondary': counts[2] | int,
      'published': counts[3] | int, 'non_additive': counts[4] | int, 'rounds': ns.rounds, 'refused': ns.refused,
      'seconds': ((modules.datetime.datetime.now() - started).total_seconds() | round(3))}) }}
{% endmacro %}

{#- `x` is the cell of `row` (row level, row key, column level, column key, row key is NULL's, column key is NULL's). -#}
{% macro _table_cell_is(x, row) -%}
  {{ x }}._k_rl = {{ row[0] | int }} and {{ x }}._k_r = {{ kanon._table_key_sql(row[1], row[4] | int == 1) }}
  and {{ x }}._k_cl = {{ row[2] | int }} and {{ x }}._k_c = {{ kanon._table_key_sql(row[3], row[5] | int == 1) }}
{%- endmacro %}
