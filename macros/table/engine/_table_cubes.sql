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

  The engine, a piece a file of macros/table/engine/; the search (macros/table/search/) and the
  gate's no_exact_disclosure both run it:

    _table_numbered.sql         the cells numbered by node (_k_d<i>) and every leaf's path to
                                the top (`anc`<i>), as CTEs and as scratch tables
    _table_cubes_bounds.sql     the bounds of a first try (leaves per line, moves per
                                dimension), none when every cube through a cell is few
    _table_cubes.sql            _table_cubes_sql, the cubes through each target, from the CTEs
                                of the four files below in order; _table_open_cells_sql, the
                                hidden cells on no protecting cube
      _table_cubes_targets.sql    the targets (_k_p) and the usable cells (_k_u); SQL over the
                                  target columns
      _table_cubes_leaves.sql     per dimension, where its moves may end and start
      _table_cubes_moves.sql      per dimension, the moves through each target and their support
      _table_cubes_combined.sql   the moves combined into cubes, their corners, those that protect
    _table_cubes_room.sql       how far a cube's cell can rise or fall within its mark and lines
-#}

{#- A select of the cubes through each cell of `targets` whose cells are all usable and can move:
    hidden cells, and with `may_hide` also published cells of at least k (whose counts are the
    cube's cost). One row per cube: the target (_k_p<i>, its count _k_pn), each dimension's move
    (_k_a<i>, _k_b<i>) and the cost.

    The arguments come in one dict, `arg_dict`, as dbt's materializations pass theirs (the
    search keeps the part every query of a table shares in its state, `cubes`; the gate builds
    its own):

      n            the number of dimensions
      cells        the numbered cells (_table_numbered_tables), with the columns `cells` has above
      anc          the prefix of the tables of the leaves' paths to the top (`anc`<i>)
      targets      the cells a cube is sought through, with the same columns: a relation, or a
                   select in parentheses
      k, lo        k, and the least count a primary may fall to (0 when zeros are hidden, else 1)
      may_hide     whether published cells of at least k may be hidden too (the search's picks)
      limit, moves the bounds below (none: unbounded)
      step         how far a cube must move in all: the protection width rounded up, else 1
      glued        a linked table's glued dimension (_table_linked), else none

    Candidates are bounded with `limit`: along dimension i the leaves a move may end at are, on
    the target's line, the first `limit` hidden leaves and the `limit` cheapest publishable ones
    (ranking secondaries first was tried: on the 1,000 x 100 benchmark the gate's check took 46 s
    instead of 4, its cubes' other cells mostly primaries); and with `moves`, only each
    dimension's `moves` cheapest moves on the target's own line (their cost there, then their
    leaves) are combined (the search's picks: every cube is a pick's candidate). Bounds only
    limit which cubes are tried: a cube found is checked whole (sound), and callers try the cells
    that found none again without bounds before anything is refused.

    The query's CTEs, each a macro of this folder whose header says what each holds:
    _table_cubes_target_ctes (_k_p the targets, _k_u the usable cells), per dimension i
    _table_cubes_leaf_ctes (_k_e<i>, _k_ea<i>: where its moves may end and start) and
    _table_cubes_move_ctes (_k_ab<i> the moves, _k_lca<i> and _k_sup<i> their support, _k_mv<i>
    those usable on the target's line, _k_ms<i> their cells), then _table_cubes_combined
    (_k_face<i>_<j>, _k_combo the cubes, _k_corner their corners to check, and the select). -#}
{% macro _table_cubes_sql(arg_dict) -%}
  with {{ kanon._table_cubes_target_ctes(arg_dict) }}

  {% for i in range(arg_dict.n) -%}
  {{ kanon._table_cubes_leaf_ctes(arg_dict, i) }}

  {{ kanon._table_cubes_move_ctes(arg_dict, i) }}

  {% endfor -%}
  {{ kanon._table_cubes_combined(arg_dict) }}
{%- endmacro %}

{#- A select of the hidden cells (_k_d<i>) of `cells` meeting `target` (a condition on `_k_t`)
    that lie on no protecting cube of hidden cells: first the cubes within `limit` and `moves`
    (_table_cubes_sql), then, for the cells that found none there, every cube (one try when both
    are none: _table_first_try_bounds). The targets left after each step are a relation of their
    own, so that a step's cubes are only ever built for its targets; the anti-joins are NOT
    EXISTS on equal keys. `arg_dict` holds _table_cubes_sql's arguments, with `target` instead of
    `targets` and `may_hide`. -#}
{% macro _table_open_cells_sql(arg_dict) -%}
  {%- set n, cells, target = arg_dict.n, arg_dict.cells, arg_dict.target -%}
  {%- set limit, moves = arg_dict.limit, arg_dict.moves -%}
  {%- set same = [] -%}
  {%- for i in range(n) -%}{%- do same.append('{a}._k_d' ~ i ~ ' = {b}._k_p' ~ i) -%}{%- endfor -%}
  {%- set same = same | join(' and ') -%}
  with _k_targets as (
    select _k_t.* from {{ cells }} as _k_t
    where _k_t._k_status <> 'published' and ({{ target }})
  ),

  _k_within as ({{ kanon._table_cubes_sql(dict(arg_dict, targets='_k_targets', may_hide=false)) }}),
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

  _k_beyond as ({{ kanon._table_cubes_sql(dict(arg_dict, targets='_k_left', may_hide=false,
      limit=none, moves=none)) }})

  select {% for i in range(n) %}_k_l._k_d{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
  from _k_left as _k_l
  where not exists (select 1 from _k_beyond as _k_v where {{ same.replace('{a}', '_k_l').replace('{b}', '_k_v') }})
  {%- endif %}
{%- endmacro %}
