{#-
  Per dimension i, the CTEs of _table_cubes_sql (each followed by a comma) that bound where a
  move along i may end (at most `limit` per line and kind: hidden, publishable) and start:

    _k_e<i>   the leaves a move along i may end at, on each target's line along i
    _k_ea<i>  for a target above the leaves along i, the leaves below its node a move may start
              from, bounded alike but ranked under that node
-#}
{% macro _table_cubes_leaf_ctes(arg_dict, i) -%}
  {%- set n, anc, limit = arg_dict.n, arg_dict.anc, arg_dict.limit -%}
  {%- set targets_of = kanon._table_target_columns -%}
  {#- the leaves a move along i may end at, on each target's line along i -#}
  _k_e{{ i }} as (
    select {{ targets_of(n, '_k_p') }}, _k_r._k_d{{ i }} as _k_leaf
    from _k_p
    inner join (
      select
        _k_u.*
        {%- if limit is not none %},
        row_number() over (
          partition by {% for j in range(n) if j != i %}_k_u._k_d{{ j }}, {% endfor %}_k_u._k_new
          order by _k_u._k_cost, _k_u._k_d{{ i }}
        ) as _k_rank
        {%- endif %}
      from _k_u
      where _k_u._k_l{{ i }} = 0 and {{ kanon._table_on_target_line(n, i, '_k_u') }}
    ) as _k_r
      on {{ kanon._table_same_target(n, '_k_p', '_k_r', i, '_k_d') }}
      {%- if limit is not none %} and _k_r._k_rank <= {{ limit }}{% endif %}
  ),

  {#- for a target above the leaves along i, the leaves below its node a move may start from,
      bounded as _k_e's but ranked under that node (ranked along the whole line, the first ones
      may all lie under other nodes, and the target then finds no move within the bounds) -#}
  _k_ea{{ i }} as (
    select {{ targets_of(n, '_k_p') }}, _k_r._k_d{{ i }} as _k_leaf
    from _k_p
    inner join (
      select
        _k_u.*,
        _k_c._k_anc
        {%- if limit is not none %},
        row_number() over (
          partition by {% for j in range(n) if j != i %}_k_u._k_d{{ j }}, {% endfor %}_k_c._k_anc, _k_u._k_new
          order by _k_u._k_cost, _k_u._k_d{{ i }}
        ) as _k_rank
        {%- endif %}
      from _k_u
      inner join {{ anc }}{{ i }} as _k_c on _k_c._k_leaf = _k_u._k_d{{ i }} and _k_c._k_al > 0
      where _k_u._k_l{{ i }} = 0 and {{ kanon._table_on_target_line(n, i, '_k_u') }}
    ) as _k_r
      on {{ kanon._table_same_target(n, '_k_p', '_k_r', i, '_k_d') }} and _k_r._k_anc = _k_p._k_p{{ i }}
      {%- if limit is not none %} and _k_r._k_rank <= {{ limit }}{% endif %}
    where _k_p._k_pl{{ i }} > 0
  ),
{%- endmacro %}
