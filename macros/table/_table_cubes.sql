{#-
  Cubes of a table with totals: the hidden-cell patterns that no published total can see
  through, shared by the search (_table_search) and the gate (no_exact_disclosure).

  Along one dimension the totals are equations: every node is the sum of its children (a flat
  dimension: the total is the sum of the values). A *move* along it is a change of its nodes'
  counts that keeps every such equation: +t on a leaf a and every node above it, -t on a leaf b
  and every node above it, which cancel from their lowest common ancestor up; or +t on a leaf a
  and every node above it, the total included (b = 0 below). Its support is the path from a to
  b without their common ancestor (two values of a flat dimension: {a, b}; a value and the
  total: {a, total}; two branches of different regions: {a, region a, b, region b}). Nodes are
  numbered (_k_d<i>, see _table_numbered_ctes) and a dimension's leaf-to-top paths are the
  relation `anc`<i> (_k_leaf, _k_anc, _k_al: the ancestor and its level, the leaf included).

  A *cube* is one move per dimension; it changes the cells of the product of their supports by
  +t or -t (the product of the moves' signs), and keeps every total of every line. When all its
  cells are hidden, and they can all move U steps one way and D steps the other within what
  their marks say and what their lines allow, with U + D >= 1, the cube protects them: each
  cell's values from x - D to x + U fit everything published, so none is disclosed exactly
  (with a protection width W, U + D must reach W rounded up: every hidden cell's interval is
  then at least W wide) (the hypercube method of tau-ARGUS and sdcTable, with
  hierarchies). The bounds a cell must stay within:

    primary    lo <= x <= k - 1 (lo = 1 when zeros are shown, 0 when they are hidden)
    secondary  x >= k (complementary suppression hides only cells that could be published;
               a published cell of at least k about to be hidden counts as one)
    a line that is not additive (one person in several children): a child may not rise past
               its parent unless the parent rises with it (it does when the parent is in the
               move's support, _k_up), and a total may not fall to its largest child (kept
               even when that child falls too: stricter than needed, so sound)

  A linked table's glued dimension (_table_linked, `glued` below) has two trees whose roots are
  equal: there a move never goes from a leaf to its root alone, and a move from a leaf of one
  tree to a leaf of the other raises both chains, both roots included.

  Along a move every line's sum of children minus its total is unchanged, so these are the
  only inequalities a move can break. The LP audit in Python (kanon_tools.attack) checks the
  result apart, without any of this.

  `cells` has, per dimension i, _k_d<i> (node), _k_l<i> (level), _k_cap<i>, _k_floor<i>; and
  _k_n, _k_status.
-#}

{#- How far corner `x` (an alias) can rise, in whole steps (_table_room_cap when nothing bounds
    it): a primary to k - 1; and past no parent of a line that is not additive, unless that
    parent rises with it (`moved`: a format with {i}, 1 when the corner's parent along dimension
    i is in the cube's move along i). -#}
{% macro _table_rise_room(x, k, n, moved) -%}
  {%- set rooms = ['case when ' ~ x ~ "._k_status = 'primary' then " ~ (k - 1) ~ ' - ' ~ x ~ '._k_n else ' ~ kanon._table_room_cap() ~ ' end'] -%}
  {%- for i in range(n) -%}
    {%- do rooms.append('case when ' ~ x ~ '._k_cap' ~ i ~ ' is null or ' ~ moved.replace('{i}', i | string) ~ ' = 1 then '
        ~ kanon._table_room_cap() ~ ' else ' ~ x ~ '._k_cap' ~ i ~ ' - ' ~ x ~ '._k_n end') -%}
  {%- endfor -%}
  least({{ rooms | join(', ') }})
{%- endmacro %}

{#- How far corner `x` can fall: a primary to lo, any other to k; and a total of a line that is
    not additive to its largest child, or to the next largest when the largest is the child
    falling with it (`falling`: a format with {i}, the node of the cube's move along i one level
    below the corner's, NULL when none or unknown). -#}
{% macro _table_fall_room(x, k, lo, n, falling) -%}
  {%- set rooms = ['case when ' ~ x ~ "._k_status = 'primary' then " ~ x ~ '._k_n - ' ~ lo ~ ' else ' ~ x ~ '._k_n - ' ~ k ~ ' end'] -%}
  {%- for i in range(n) -%}
    {%- do rooms.append('case when ' ~ x ~ '._k_floor' ~ i ~ ' is null then ' ~ kanon._table_room_cap() ~ ' when ' ~ x ~ '._k_topd' ~ i ~ ' = '
        ~ falling.replace('{i}', i | string) ~ ' then ' ~ x ~ '._k_n - ' ~ x ~ '._k_next' ~ i ~ ' else ' ~ x ~ '._k_n - ' ~ x ~ '._k_floor' ~ i ~ ' end') -%}
  {%- endfor -%}
  least({{ rooms | join(', ') }})
{%- endmacro %}

{#- The room of a cell nothing bounds (more than any count). -#}
{% macro _table_room_cap() %}
  {{ return('1000000000') }}
{% endmacro %}

{#- `a._k_p0 = b._k_p0 and ...`: the target columns of two relations equal, `skip` left out;
    with `other`, each of a's _k_p<j> against b's `other`<j>. -#}
{% macro _table_same_target(n, a, b, skip=none, other='_k_p') -%}
  {%- for j in range(n) if j != skip -%}
    {{ a }}._k_p{{ j }} = {{ b }}.{{ other }}{{ j }}{% if not loop.last %} and {% endif %}
  {%- endfor -%}
{%- endmacro %}

{#- SQL: whether cell `x` lies on some target's line along dimension i (every other node a
    target's). The candidates of a line are ranked only on the targets' lines: late rounds of the
    search have few targets, and ranking every line of the table cost each round seconds. -#}
{% macro _table_on_target_line(n, i, x) -%}
  exists (select 1 from _k_p where {% for j in range(n) if j != i %}_k_p._k_p{{ j }} = {{ x }}._k_d{{ j }}{% if not loop.last %} and {% endif %}{% endfor %})
{%- endmacro %}

{#- `a._k_p0, a._k_p1, ...` -#}
{% macro _table_target_columns(n, a) -%}
  {%- for j in range(n) -%}{{ a }}._k_p{{ j }}{% if not loop.last %}, {% endif %}{%- endfor -%}
{%- endmacro %}

{#- `<prefix>lca<i>` and `<prefix>sup<i>`, each followed by a comma: for the moves of `pairs` (a
    relation with a target's _k_p<j>, a leaf _k_a and a leaf or 0 _k_b, along dimension i), the
    level of their common ancestor (_k_lca; 1000000 for b = 0: every node above a moves), and
    their support: one row per node _k_s moved, its sign, whether its parent moves too (_k_up)
    and which of its children moves with it (_k_down, NULL at a leaf). Two leaves without a
    common ancestor (a linked table's glued dimension, one leaf of each tree: _table_linked)
    move +1 both, each with every node above it up to its root, which keeps both trees' sums and
    their roots equal. -#}
{% macro _table_support_ctes(n, i, pairs, anc, prefix) -%}
{%- set targets = kanon._table_target_columns(n, '_k_pr') -%}
{{ prefix }}lca{{ i }} as (
  select _k_pr.*, coalesce(_k_j._k_lca, 1000000) as _k_lca
  from {{ pairs }} as _k_pr
  left join (
    select _k_q._k_a, _k_q._k_b, min(_k_ca._k_al) as _k_lca
    from (select distinct _k_a, _k_b from {{ pairs }}) as _k_q
    inner join {{ anc }}{{ i }} as _k_ca on _k_ca._k_leaf = _k_q._k_a
    inner join {{ anc }}{{ i }} as _k_cb on _k_cb._k_leaf = _k_q._k_b and _k_cb._k_anc = _k_ca._k_anc
    group by _k_q._k_a, _k_q._k_b
  ) as _k_j on _k_j._k_a = _k_pr._k_a and _k_j._k_b = _k_pr._k_b
),

{{ prefix }}sup{{ i }} as (
  {%- for side, sign in [('_k_a', '1'), ('_k_b', 'case when _k_pr._k_lca = 1000000 then 1 else -1 end')] %}
  {% if not loop.first %}union all
  {% endif -%}
  select {{ targets }}, _k_pr._k_a, _k_pr._k_b, _k_pr._k_lca, _k_c._k_anc as _k_s, {{ sign }} as _k_sign,
    case when _k_c._k_al + 1 < _k_pr._k_lca then 1 else 0 end as _k_up,
    _k_below._k_anc as _k_down
  from {{ prefix }}lca{{ i }} as _k_pr
  inner join {{ anc }}{{ i }} as _k_c on _k_c._k_leaf = _k_pr.{{ side }} and _k_c._k_al < _k_pr._k_lca
  left join {{ anc }}{{ i }} as _k_below on _k_below._k_leaf = _k_pr.{{ side }} and _k_below._k_al = _k_c._k_al - 1
  {%- endfor %}
),
{%- endmacro %}

{#- A select of the cubes through each cell of `targets` (cells, with the columns of `cells`)
    whose cells are all usable and can move: hidden cells, and with `search` also published
    cells of at least k (whose counts are the cube's cost). One row per cube: the target
    (_k_p<i>, its count _k_pn), each dimension's move (_k_a<i>, _k_b<i>) and the cost.

    Candidates are bounded with `limit`: along dimension i the leaves a move may end at are, on
    the target's line, the first `limit` hidden leaves and the `limit` cheapest publishable ones
    (ranking secondaries first was tried: on the 1,000 x 100 benchmark the gate's check took 46 s
    instead of 4, its cubes' other cells mostly primaries); and with `moves`,
    only each dimension's `moves` cheapest moves on the target's own line (their cost there, then
    their leaves) are combined (the search's picks: every cube is a pick's candidate). Bounds only limit which cubes are
    tried: a cube found is checked whole (sound), and callers try the cells that found none
    again without bounds before anything is refused.

    The query's CTEs, each a macro of macros/table/search/ whose header says what each holds:
    _table_cubes_target_ctes (_k_p the targets, _k_u the usable cells), per dimension i
    _table_cubes_leaf_ctes (_k_e<i>, _k_ea<i>: where its moves may end and start) and
    _table_cubes_move_ctes (_k_ab<i> the moves, _k_lca<i> and _k_sup<i> their support, _k_mv<i>
    those usable on the target's line, _k_ms<i> their cells), then _table_cubes_combined
    (_k_face<i>_<j>, _k_combo the cubes, _k_corner their corners to check, and the select). -#}
{% macro _table_cubes_sql(n, cells, anc, targets, k, lo, search, limit, moves, step=1, glued=none) -%}
  with {{ kanon._table_cubes_target_ctes(n, cells, targets, k, search) }}

  {% for i in range(n) -%}
  {{ kanon._table_cubes_leaf_ctes(n, i, anc, limit) }}

  {{ kanon._table_cubes_move_ctes(n, i, anc, k, lo, step, glued) }}

  {% endfor -%}
  {{ kanon._table_cubes_combined(n, k, lo, moves, step) }}
{%- endmacro %}

{#- How far corner `x` of a cube, whose moves' support rows are `s`0..`s`n-1, can move in direction
    `direction` of the cube: it moves by the product of its signs times the direction, its
    moves relaxing its bounds (_table_rise_room, _table_fall_room, with _k_up and _k_down of `s`). -#}
{% macro _table_corner_room(x, s, n, k, lo, direction) -%}
  {%- set sign = [] -%}
  {%- for i in range(n) -%}{%- do sign.append(s ~ i ~ '._k_sign') -%}{%- endfor -%}
  case when {{ sign | join(' * ') }} * {{ direction }} = 1 then {{ kanon._table_rise_room(x, k, n, s ~ '{i}._k_up') }}
    else {{ kanon._table_fall_room(x, k, lo, n, s ~ '{i}._k_down') }} end
{%- endmacro %}

{#- `least(<expr 0>, ..., <expr n-1>)`: `expression` a format with {i}. -#}
{% macro _table_least(n, expression) -%}
  {%- if n == 1 -%}{{ expression.replace('{i}', '0') }}{%- else -%}
  least({% for i in range(n) %}{{ expression.replace('{i}', i | string) }}{% if not loop.last %}, {% endif %}{% endfor %})
  {%- endif -%}
{%- endmacro %}

{#- A select of the hidden cells (_k_d<i>) of `cells` meeting `target` (a condition on `_k_t`)
    that lie on no protecting cube of hidden cells: first the cubes within `limit` and `moves`
    (_table_cubes_sql), then, for the cells that found none there, every cube (one try when both
    are none: _table_first_try_bounds). The targets left
    after each step are a relation of their own, so that a step's cubes are only ever built for
    its targets; the anti-joins are NOT EXISTS on equal keys. `cells` may be a CTE of the
    caller's query. -#}
{% macro _table_open_cells_sql(n, cells, anc, target, k, lo, limit, moves, step=1, glued=none) -%}
  {%- set same = [] -%}
  {%- for i in range(n) -%}{%- do same.append('{a}._k_d' ~ i ~ ' = {b}._k_p' ~ i) -%}{%- endfor -%}
  {%- set same = same | join(' and ') -%}
  with _k_targets as (
    select _k_t.* from {{ cells }} as _k_t
    where _k_t._k_status <> 'published' and ({{ target }})
  ),

  _k_within as ({{ kanon._table_cubes_sql(n, cells, anc, '_k_targets', k, lo, false, limit, moves, step, glued) }}),
  {%- if limit is none and moves is none %}

  {#- without bounds every cube was tried: no second try -#}
  _k_left as (
    select _k_t.* from _k_targets as _k_t
    where not exists (select 1 from _k_within as _k_w where {{ same.replace('{a}', '_k_t').replace('{b}', '_k_w') }})
  )

  select {% for i in range(n) %}_k_l._k_d{{ i }}{% if not loop.last %}, {% endif %}{% endfor %} from _k_left as _k_l
  {%- else %}

  _k_left as (
    select _k_t.* from _k_targets as _k_t
    where not exists (select 1 from _k_within as _k_w where {{ same.replace('{a}', '_k_t').replace('{b}', '_k_w') }})
  ),

  _k_beyond as ({{ kanon._table_cubes_sql(n, cells, anc, '_k_left', k, lo, false, none, none, step, glued) }})

  select {% for i in range(n) %}_k_l._k_d{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
  from _k_left as _k_l
  where not exists (select 1 from _k_beyond as _k_v where {{ same.replace('{a}', '_k_l').replace('{b}', '_k_v') }})
  {%- endif %}
{%- endmacro %}

{#- CTEs numbering the cells of `source` (with _k_l<i>, _k_k<i>, _k_pk<i> per dimension), each
    followed by a comma: `_k_ids<i>` every node of dimension i with its number _k_d (in the
    search's order: level first, values before totals; then keys by their bytes, NULL first)
    and its parent's _k_u; `<anc><i>` every leaf's path to the top (_k_leaf, _k_anc, _k_al);
    and `name` (not followed by a comma), the cells with their nodes' numbers _k_d<i> (and
    _k_topd<i>, the number of their largest child along i when it is one child's). `tops`
    holds each dimension's top level. The search and the gate number cells the same way. -#}
{% macro _table_numbered_ctes(source, tops, name, anc) -%}
{%- set n = tops | length -%}
{%- for i in range(n) %}
_k_ids{{ i }} as (
  select
    _k_c._k_l,
    _k_c._k_k,
    _k_c._k_pk,
    cast(dense_rank() over (order by _k_c._k_l, {{ kanon._text_order('_k_c._k_k') }}) as {{ dbt.type_int() }}) as _k_d
  from (select distinct _k_l{{ i }} as _k_l, _k_k{{ i }} as _k_k, _k_pk{{ i }} as _k_pk from {{ source }}) as _k_c
),

_k_idp{{ i }} as (
  select _k_c._k_d, _k_c._k_l, _k_p._k_d as _k_u
  from _k_ids{{ i }} as _k_c
  left join _k_ids{{ i }} as _k_p on _k_p._k_l = _k_c._k_l + 1 and _k_p._k_k = _k_c._k_pk
),

{{ anc }}{{ i }} as (
  {%- for up in range(tops[i] + 1) %}
  {% if not loop.first %}union all
  {% endif -%}
  select _k_c0._k_d as _k_leaf, _k_c{{ up }}._k_d as _k_anc, _k_c{{ up }}._k_l as _k_al
  from _k_idp{{ i }} as _k_c0
  {%- for step in range(1, up + 1) %}
  inner join _k_idp{{ i }} as _k_c{{ step }} on _k_c{{ step }}._k_d = _k_c{{ step - 1 }}._k_u
  {%- endfor %}
  where _k_c0._k_l = 0
  {%- endfor %}
),

{% endfor -%}
{{ name }} as (
  select
    _k_s.*
    {%- for i in range(n) %},
    _k_i{{ i }}._k_d as _k_d{{ i }},
    _k_t{{ i }}._k_d as _k_topd{{ i }}
    {%- endfor %}
  from {{ source }} as _k_s
  {%- for i in range(n) %}
  inner join _k_ids{{ i }} as _k_i{{ i }} on _k_i{{ i }}._k_l = _k_s._k_l{{ i }} and _k_i{{ i }}._k_k = _k_s._k_k{{ i }}
  left join _k_ids{{ i }} as _k_t{{ i }} on _k_t{{ i }}._k_l = _k_s._k_l{{ i }} - 1 and _k_t{{ i }}._k_k = _k_s._k_topk{{ i }}
  {%- endfor %}
)
{%- endmacro %}
