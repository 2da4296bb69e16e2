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
  (no_exact_disclosure); the LP audit in Python (kanon_tools.attack) checks the result apart.

  Where a line is not additive (one person in several of its cells), its total bounds its parts
  from above and its largest part bounds the total from below: a corner pressed against such a
  bound cannot move that way (_table_with_bounds), whatever its mark allows. Along a rectangle a
  line's part and total move together and its sum minus its total never changes, so these are
  the only inequalities a move can break.

  The cells' relation (`cells`) has the columns of _k_table: _k_rl, _k_r, _k_cl, _k_c, _k_n,
  _k_sign, _k_status and the bounds of _table_with_bounds.
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

{#- The rectangle's other corners: `_k_a` in p's row (this condition), `_k_b` in p's column and
    `_k_d` opposite p (the joins of _table_rectangle_joins). -#}
{% macro _table_rectangle_where(p) -%}
  _k_a._k_rl = {{ p }}._k_rl and _k_a._k_r = {{ p }}._k_r
  and not (_k_a._k_cl = {{ p }}._k_cl and _k_a._k_c = {{ p }}._k_c)
{%- endmacro %}

{% macro _table_rectangle_joins(cells, p) -%}
  inner join {{ cells }} as _k_b
    on
      _k_b._k_cl = {{ p }}._k_cl and _k_b._k_c = {{ p }}._k_c
      and not (_k_b._k_rl = {{ p }}._k_rl and _k_b._k_r = {{ p }}._k_r)
  inner join {{ cells }} as _k_d
    on
      _k_d._k_rl = _k_b._k_rl and _k_d._k_r = _k_b._k_r
      and _k_d._k_cl = _k_a._k_cl and _k_d._k_c = _k_a._k_c
{%- endmacro %}

{#- Whether the hidden cell `p` lies on a protecting rectangle of hidden cells. -#}
{% macro _table_protected(cells, p, k, lo) -%}
  exists (
    select 1
    from {{ cells }} as _k_a
    {{ kanon._table_rectangle_joins(cells, p) }}
    where
      {{ kanon._table_rectangle_where(p) }}
      and _k_a._k_status <> 'published' and _k_b._k_status <> 'published' and _k_d._k_status <> 'published'
      and {{ kanon._table_rectangle_moves(p, '_k_a', '_k_b', '_k_d', k, lo) }}
  )
{%- endmacro %}
