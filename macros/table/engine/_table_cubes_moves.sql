{#-
  Per dimension i, the CTEs of _table_cubes_sql (each followed by a comma) of the moves along i
  through each target:

    _k_ab<i>    the moves: from the target's own node when a leaf, else from a leaf below it
                (_k_a), to another leaf whose common ancestor with it is above the target's node,
                or to the top (_k_b: 0)
    _k_lca<i>   each move with the level of its leaves' common ancestor (_table_support_ctes)
    _k_sup<i>   each move's support: one row per node it moves, with its sign
    _k_mv<i>    the moves whose cells on the target's own line are all usable and can move by
                `step` (_k_rise, _k_fall), with their cost there (_k_axcost), rank (_k_mrank) and
                id (_k_id); _k_cross when a corner's line along another dimension is not additive
    _k_ms<i>    each of those moves' cells by its id, and whether the cell is off the target's
                own node (_k_off)

  A move's support (_table_support_ctes, below) is also what the search's step 4 hides.
-#}
{% macro _table_cubes_move_ctes(arg_dict, i) -%}
  {%- set n, anc, k, lo = arg_dict.n, arg_dict.anc, arg_dict.k, arg_dict.lo -%}
  {%- set step, glued = arg_dict.step, arg_dict.glued -%}
  {%- set targets_of = kanon._table_target_columns -%}
  {#- moves through the target: from its own node when a leaf, else from a leaf below it; to
      another leaf whose common ancestor with it is above the target's node, or to the top -#}
  _k_ab{{ i }} as (
    select _k_x.*, _k_y._k_b
    from (
      select {{ targets_of(n, '_k_p') }}, _k_p._k_pl{{ i }}
        {{- ', ' }}_k_p._k_p{{ i }} as _k_a from _k_p where _k_p._k_pl{{ i }} = 0
      union all
      select {{ targets_of(n, '_k_p') }}, _k_p._k_pl{{ i }}, _k_e._k_leaf as _k_a
      from _k_ea{{ i }} as _k_e
      inner join _k_p on {{ kanon._table_same_target(n, '_k_e', '_k_p') }}
    ) as _k_x
    inner join (
      select {{ targets_of(n, '_k_e') }}, _k_e._k_leaf as _k_b from _k_e{{ i }} as _k_e
      {%- if i != glued %}
      union all
      select {{ targets_of(n, '_k_p') }}, 0 as _k_b from _k_p
      {%- endif %}
    ) as _k_y
      on {{ kanon._table_same_target(n, '_k_x', '_k_y') }} and _k_y._k_b <> _k_x._k_a
  ),

  {{ kanon._table_support_ctes(n, i, '_k_ab' ~ i, anc, '_k_') }}

  {#- the moves whose cells on the target's own line along i are all usable, cheapest there
      first, each with whether those cells can all move with the cube one way (_k_rise: the
      direction in which the target rises) or the other (_k_fall) within their marks and their
      lines along i; _k_cross when one of them also has a line that is not additive along
      another dimension, which the cube's corners then check, knowing every move. A cube needs
      only its corners off the target's lines checked, and those -#}
  {%- set rise = kanon._table_rise_room('_k_x', k, n, '_k_x._k_up{i}') %}
  {%- set fall = kanon._table_fall_room('_k_x', k, lo, n, '_k_x._k_dn{i}') %}
  _k_mv{{ i }} as (
    select
      _k_m.*,
      {{ kanon._row_number_unordered([targets_of(n, '_k_m'), '_k_m._k_a', '_k_m._k_b']) }} as _k_id,
      row_number() over (partition by {{ targets_of(n, '_k_m') }} order by _k_m._k_axcost, _k_m._k_a
        {{- ', ' }}_k_m._k_b) as _k_mrank
    from (
      select
        {{ targets_of(n, '_k_x') }},
        _k_x._k_a,
        _k_x._k_b,
        count(*) as _k_size,
        count(_k_x._k_status) as _k_ok,
        coalesce(sum(_k_x._k_cost), 0) as _k_axcost,
        max(_k_x._k_cross) as _k_cross,
        min(case when _k_x._k_sign = 1 then {{ rise }} else {{ fall }} end) as _k_rise,
        min(case when _k_x._k_sign = 1 then {{ fall }} else {{ rise }} end) as _k_fall
      from (
        select
          _k_s.*,
          _k_c._k_status,
          _k_c._k_n,
          _k_c._k_cost,
          {#- along the other dimensions the bounds of lines that are not additive wait for
              the cube's corners (_k_cross), which know the other moves -#}
          case when _k_s._k_s <> _k_s._k_p{{ i }} and (
          {%- for j in range(n) if j != i %}_k_c._k_cap{{ j }} is not null or _k_c._k_floor{{ j }} is not null
          {%- if not loop.last %} or {% endif %}{% endfor %})
            then 1 else 0 end as _k_cross,
          {%- for j in range(n) %}
          {%- if j == i %}
          _k_c._k_cap{{ j }},
          _k_c._k_floor{{ j }},
          _k_c._k_next{{ j }},
          _k_c._k_topd{{ j }},
          _k_s._k_up as _k_up{{ j }},
          _k_s._k_down as _k_dn{{ j }}{% if not loop.last %},{% endif %}
          {%- else %}
          cast(null as {{ dbt.type_bigint() }}) as _k_cap{{ j }},
          cast(null as {{ dbt.type_bigint() }}) as _k_floor{{ j }},
          cast(null as {{ dbt.type_bigint() }}) as _k_next{{ j }},
          cast(null as {{ dbt.type_int() }}) as _k_topd{{ j }},
          0 as _k_up{{ j }},
          cast(null as {{ dbt.type_int() }}) as _k_dn{{ j }}{% if not loop.last %},{% endif %}
          {%- endif %}
          {%- endfor %}
        from _k_sup{{ i }} as _k_s
        inner join _k_lca{{ i }} as _k_l
          on {{ kanon._table_same_target(n, '_k_l', '_k_s') }} and _k_l._k_a = _k_s._k_a and _k_l._k_b = _k_s._k_b
        left join _k_u as _k_c
          on _k_c._k_d{{ i }} = _k_s._k_s{% for j in range(n) if j != i %} and _k_c._k_d{{ j }} = _k_s._k_p{{ j }}
          {%- endfor %}
        where _k_l._k_lca > _k_l._k_pl{{ i }}
      ) as _k_x
      group by {{ targets_of(n, '_k_x') }}, _k_x._k_a, _k_x._k_b
    ) as _k_m
    where _k_m._k_ok = _k_m._k_size and _k_m._k_rise + _k_m._k_fall >= {{ step }}
  ),

  {#- each move's cells by its id (a cube's corners join its moves by id, never by target: by
      target, a warehouse may first pair every move of one dimension with every move of the
      next), and whether the node is the target's own -#}
  _k_ms{{ i }} as (
    select
      _k_mv{{ i }}._k_id,
      _k_s._k_s,
      _k_s._k_sign,
      _k_s._k_up,
      _k_s._k_down,
      case when _k_s._k_s = _k_s._k_p{{ i }} then 0 else 1 end as _k_off
    from _k_mv{{ i }}
    inner join _k_sup{{ i }} as _k_s
      on {{ kanon._table_same_target(n, '_k_s', '_k_mv' ~ i) }} and _k_s._k_a = _k_mv{{ i }}._k_a
        {{- ' and ' }}_k_s._k_b = _k_mv{{ i }}._k_b
  ),
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
