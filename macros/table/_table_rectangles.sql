{#-
  Rectangles of a two-way table: four cells (r, c), (r, c'), (r', c), (r', c'), where a row or a
  column may be a total line. Hidden together, they can all move by t along the rectangle
  (+t, -t, -t, +t, each times the cell's _k_sign) without changing any line's sum: the totals
  cannot tell the true values from the moved ones. Such a move is only possible while every
  corner stays within what its mark says:

    primary    lo <= x <= k - 1 (lo = 1 when zeros are shown, 0 when they are hidden)
    secondary  x >= k (complementary suppression hides only cells that could be published;
               a published cell of at least k about to be hidden counts as one)

  A rectangle *protects* its corners when it can move in one direction or the other: every
  corner moving up has room below its upper bound and every corner moving down room above its
  lower bound. A hidden cell on a protecting rectangle of hidden cells is not exactly
  disclosed: its values x and x +/- 1 both fit everything published (all counts are whole
  numbers). These predicates are shared by the search (_table_search) and the gate
  (no_exact_disclosure), through _table_protected_sql and _table_open_cells_sql; the LP audit
  in Python (kanon_tools.attack) checks the result apart.

  Where a line is not additive (one person in several of its cells), its total bounds its parts
  from above and its largest part bounds the total from below: a corner pressed against such a
  bound cannot move that way (_table_with_bounds), whatever its mark allows. Along a rectangle a
  line's part and total move together and its sum minus its total never changes, so these are
  the only inequalities a move can break.

  The cells' relation (`cells`) has the columns of _k_table: _k_rl, _k_r, _k_cl, _k_c, _k_n,
  _k_sign, _k_status and the bounds of _table_with_bounds, and _k_ri, _k_ci (the row and column
  as whole numbers).
-#}

{#- Whether cell `x` (an alias) can move up: a primary below k - 1, or any other; and, in a line
    that is not additive, below that line's total (_table_with_bounds), unless that total is the
    corner beside it in the rectangle (`row_mate`, `column_mate`), which then rises with it. -#}
{% macro _table_can_rise(x, k, row_mate, column_mate) -%}
  (({{ x }}._k_status <> 'primary' or {{ x }}._k_n < {{ k - 1 }})
  and ({{ x }}._k_row_cap is null or {{ x }}._k_n < {{ x }}._k_row_cap or {{ row_mate }}._k_cl = 1)
  and ({{ x }}._k_column_cap is null or {{ x }}._k_n < {{ x }}._k_column_cap or {{ column_mate }}._k_rl = 1))
{%- endmacro %}

{#- Whether cell `x` can move down: a primary above lo, any other above k; and a total of a line
    that is not additive above its largest part, or the next largest when the largest is the
    corner beside it (which falls with it). -#}
{% macro _table_can_fall(x, k, lo, row_mate, column_mate) -%}
  ((case when {{ x }}._k_status = 'primary' then {{ x }}._k_n > {{ lo }} else {{ x }}._k_n > {{ k }} end)
  and ({{ x }}._k_row_floor is null or {{ x }}._k_n > (case when {{ row_mate }}._k_n = {{ x }}._k_row_floor
    then {{ x }}._k_row_floor_next else {{ x }}._k_row_floor end))
  and ({{ x }}._k_column_floor is null or {{ x }}._k_n > (case when {{ column_mate }}._k_n = {{ x }}._k_column_floor
    then {{ x }}._k_column_floor_next else {{ x }}._k_column_floor end)))
{%- endmacro %}

{#- Whether the rectangle p, a (p's row), b (p's column), d (opposite p) can move: all corners
    one way (t > 0) or all the other (t < 0). A corner and the one beside it in its row (or
    column) are that line's only cells that move, by opposite amounts in its sum, so a part and
    its total beside it move the same way. -#}
{% macro _table_rectangle_moves(p, a, b, d, k, lo) -%}
  {#- each corner with its sign and the corners beside it in its row and in its column -#}
  {%- set corners = [(p, '', a, b), (a, '-', p, d), (b, '-', d, p), (d, '', b, a)] -%}
  {%- set ways = [] -%}
  {%- for direction in ['', '-'] -%}
    {%- set terms = [] -%}
    {%- for x, sign, row_mate, column_mate in corners -%}
      {%- set rises = (sign == direction) -%}
      {#- a corner whose sign times the direction is +1 rises with t when its own _k_sign is +1 -#}
      {%- do terms.append('(case when ' ~ x ~ '._k_sign = ' ~ ('1' if rises else '-1') ~ ' then '
          ~ kanon._table_can_rise(x, k, row_mate, column_mate) ~ ' else ' ~ kanon._table_can_fall(x, k, lo, row_mate, column_mate) ~ ' end)') -%}
    {%- endfor -%}
    {%- do ways.append('(' ~ (terms | join(' and ')) ~ ')') -%}
  {%- endfor -%}
  ({{ ways | join(' or ') }})
{%- endmacro %}

{#- A select of the cells (_k_ri, _k_ci) of `targets` (hidden cells, with the columns of `cells`)
    that lie on a protecting rectangle of the hidden cells of `cells`: set-based, one query for
    all of them. `cells` has the columns of _k_table plus _k_ri and _k_ci, each cell's row and
    column as whole numbers in the search's order (dense ranks: level, then label by its bytes).

    With `limit`, only rectangles whose corner in p's row is among the first `limit` hidden cells
    of that row, and whose corner in p's column among the first `limit` hidden cells of that
    column (by column, row order), are tried: each target is joined with at most limit^2 pairs
    instead of (hidden cells of its row) x (hidden cells of its column), thousands in a table with
    hundreds of hidden cells per column. Pruning only limits which rectangles are tried: a
    rectangle found is a real one (sound); a cell for which none is found is tried again without
    the limit (_table_open_cells_sql), and only a cell on no rectangle at all is open. -#}
{% macro _table_protected_sql(cells, targets, k, lo, limit=none) -%}
  with _k_h as (
    select
      _k_x.*,
      row_number() over (partition by _k_x._k_ri order by _k_x._k_ci) as _k_hr,
      row_number() over (partition by _k_x._k_ci order by _k_x._k_ri) as _k_hc
    from {{ cells }} as _k_x
    where _k_x._k_status <> 'published'
  )

  select distinct
    _k_p._k_ri,
    _k_p._k_ci
  {{ kanon._table_rectangle_join(targets, '_k_h', '_k_h', '_k_h', '_k_hr', '_k_hc', limit, k, lo) }}
{%- endmacro %}

{#- `from <targets> as _k_p join ... where ...`: every rectangle of a target cell p (_k_ri, _k_ci)
    with a (p's row, from `row_mates`), b (p's column, from `column_mates`) and d (opposite p,
    from `opposites`) that can move; with a `limit`, a and b only among the first `limit` of
    their line by `row_rank` and `column_rank`. Shared by the protection check and the search's
    picks. -#}
{% macro _table_rectangle_join(targets, row_mates, column_mates, opposites, row_rank, column_rank, limit, k, lo) -%}
  from {{ targets }} as _k_p
  inner join {{ row_mates }} as _k_a
    on
      _k_a._k_ri = _k_p._k_ri and _k_a._k_ci <> _k_p._k_ci
      {%- if limit is not none %} and _k_a.{{ row_rank }} <= {{ limit }}{% endif %}
  inner join {{ column_mates }} as _k_b
    on
      _k_b._k_ci = _k_p._k_ci and _k_b._k_ri <> _k_p._k_ri
      {%- if limit is not none %} and _k_b.{{ column_rank }} <= {{ limit }}{% endif %}
  inner join {{ opposites }} as _k_d
    on _k_d._k_ri = _k_b._k_ri and _k_d._k_ci = _k_a._k_ci
  where {{ kanon._table_rectangle_moves('_k_p', '_k_a', '_k_b', '_k_d', k, lo) }}
{%- endmacro %}

{#- A select of the hidden cells (_k_ri, _k_ci) of `cells` meeting `target` (a condition on
    `_k_p`) that lie on no protecting rectangle of hidden cells: first the rectangles within
    `limit` (_table_protected_sql), then, for the cells that found none there, all of them. The
    targets left after each step are a relation of their own, so that the rectangles of a step
    are only ever joined to its targets; the anti-joins are NOT EXISTS on equal keys (hash
    anti-joins on both warehouses), not NOT IN on a pair, which a warehouse may answer by
    comparing every pair with every pair. `cells` may be a CTE of the caller's query. -#}
{% macro _table_open_cells_sql(cells, target, k, lo, limit) -%}
  with _k_targets as (
    select _k_p.* from {{ cells }} as _k_p
    where _k_p._k_status <> 'published' and ({{ target }})
  ),

  _k_within as ({{ kanon._table_protected_sql(cells, '_k_targets', k, lo, limit) }}),

  _k_left as (
    select _k_t.* from _k_targets as _k_t
    where not exists (select 1 from _k_within as _k_w where _k_w._k_ri = _k_t._k_ri and _k_w._k_ci = _k_t._k_ci)
  ),

  _k_beyond as ({{ kanon._table_protected_sql(cells, '_k_left', k, lo) }})

  select _k_l._k_ri, _k_l._k_ci
  from _k_left as _k_l
  where not exists (select 1 from _k_beyond as _k_v where _k_v._k_ri = _k_l._k_ri and _k_v._k_ci = _k_l._k_ci)
{%- endmacro %}
