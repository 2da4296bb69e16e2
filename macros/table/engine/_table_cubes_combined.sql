{#-
  The last CTEs of _table_cubes_sql and its select: the moves of every dimension combined into
  cubes, and the cubes that protect.

    _k_face<i>_<j>  (three or more dimensions) the pairs of moves along i and j whose face of the
                    cube (its cells off the target's lines along those two only) is usable
    _k_combo        one move per dimension: a cube, with what its moves' lines allow (_k_rise,
                    _k_fall), their cost (_k_axcost) and its size
    _k_corner       every corner of a cube to check, with its cost and room to move each way
  and the select: the cubes whose every corner can move as their lines can, one row per cube.
-#}
{% macro _table_cubes_combined(arg_dict) -%}
  {%- set n, k, lo = arg_dict.n, arg_dict.k, arg_dict.lo -%}
  {%- set moves, step = arg_dict.moves, arg_dict.step -%}
  {%- set targets_of = kanon._table_target_columns -%}
  {%- if n > 2 %}
  {#- three or more dimensions: the pairs of moves whose face of the cube (the cells off the
      target's lines along those two dimensions only) is usable, before moves are combined,
      since the cubes tried per cell are the moves per dimension to the power of the dimensions -#}
  {%- for i in range(n) %}{% for j in range(i + 1, n) %}
  _k_face{{ i }}_{{ j }} as (
    select _k_mi._k_id as _k_idi, _k_mj._k_id as _k_idj
    from _k_mv{{ i }} as _k_mi
    inner join _k_mv{{ j }} as _k_mj on {{ kanon._table_same_target(n, '_k_mi', '_k_mj') }}
    inner join _k_ms{{ i }} as _k_si on _k_si._k_id = _k_mi._k_id and _k_si._k_off = 1
    inner join _k_ms{{ j }} as _k_sj on _k_sj._k_id = _k_mj._k_id and _k_sj._k_off = 1
    left join _k_u as _k_x
      on _k_x._k_d{{ i }} = _k_si._k_s and _k_x._k_d{{ j }} = _k_sj._k_s
      {%- for h in range(n) if h != i and h != j %} and _k_x._k_d{{ h }} = _k_mi._k_p{{ h }}{% endfor %}
    {%- if moves is not none %}
    where _k_mi._k_mrank <= {{ moves }} and _k_mj._k_mrank <= {{ moves }}
    {%- endif %}
    group by _k_mi._k_id, _k_mj._k_id
    having count(_k_x._k_status) = count(*)
  ),

  {% endfor %}{% endfor %}
  {%- endif %}
  {#- combinations of one move per dimension that can go one way together on the target's lines -#}
  _k_combo as (
    select
      _k_p.*,
      {%- for i in range(n) %}
      _k_mv{{ i }}._k_a as _k_a{{ i }},
      _k_mv{{ i }}._k_b as _k_b{{ i }},
      _k_mv{{ i }}._k_id as _k_id{{ i }},
      _k_mv{{ i }}._k_cross as _k_cross{{ i }},
      {%- endfor %}
      {% for i in range(n) %}_k_mv{{ i }}._k_axcost{% if not loop.last %} + {% endif %}{% endfor %} as _k_axcost,
      {{ kanon._table_least(n, '_k_mv{i}._k_rise') }} as _k_rise,
      {{ kanon._table_least(n, '_k_mv{i}._k_fall') }} as _k_fall,
      {% for i in range(n) %}_k_mv{{ i }}._k_size{% if not loop.last %} * {% endif %}{% endfor %} as _k_cube_size,
      {% for i in range(n) %}_k_mv{{ i }}._k_size{% if not loop.last %} + {% endif %}{% endfor %} as _k_line_size
    from _k_p
    {%- for i in range(n) %}
    inner join _k_mv{{ i }}
      on {{ kanon._table_same_target(n, '_k_mv' ~ i, '_k_p') }}
      {%- if moves is not none %} and _k_mv{{ i }}._k_mrank <= {{ moves }}{% endif %}
    {%- endfor %}
    {%- if n > 2 %}
    {%- for i in range(n) %}{% for j in range(i + 1, n) %}
    inner join _k_face{{ i }}_{{ j }} on _k_face{{ i }}_{{ j }}._k_idi = _k_mv{{ i }}._k_id
      {{- ' and ' }}_k_face{{ i }}_{{ j }}._k_idj = _k_mv{{ j }}._k_id
    {%- endfor %}{% endfor %}
    {%- endif %}
    where {{ kanon._table_least(n, '_k_mv{i}._k_rise') }}
      {{- ' + ' }}{{ kanon._table_least(n, '_k_mv{i}._k_fall') }} >= {{ step }}
  ),

  {#- every corner off the target's lines (two or more nodes not the target's), and those on
      them that _k_cross left to check, with what each can do: usable, and moving its way in
      each direction the lines allow -#}
  {%- set offs = [] %}
  {%- for i in range(n) %}{% do offs.append('_k_s' ~ i ~ '._k_off') %}{% endfor %}
  {%- set offs = '(' ~ (offs | join(' + ')) ~ ')' %}
  _k_corner as (
    select
      {{ targets_of(n, '_k_combo') }},
      _k_combo._k_pn,
      {%- for i in range(n) %}
      _k_combo._k_a{{ i }},
      _k_combo._k_b{{ i }},
      {%- endfor %}
      _k_combo._k_axcost,
      _k_combo._k_cube_size - _k_combo._k_line_size + {{ n - 1 }} as _k_off,
      case when {{ offs }} >= 2 then 1 else 0 end as _k_is_off,
      _k_x._k_cost,
      _k_combo._k_rise,
      _k_combo._k_fall,
      case when _k_x._k_status is null then 0 else 1 end as _k_found,
      {{ kanon._table_corner_room('_k_x', '_k_s', n, k, lo, 1) }} as _k_up_room,
      {{ kanon._table_corner_room('_k_x', '_k_s', n, k, lo, -1) }} as _k_down_room
    from _k_combo
    {%- for i in range(n) %}
    {# two dimensions: a corner off both lines is off in each; one on the other's line is
       checked when that line's move left it to (_k_cross) #}
    inner join _k_ms{{ i }} as _k_s{{ i }}
      on _k_s{{ i }}._k_id = _k_combo._k_id{{ i }}
      {%- if n == 2 %} and (_k_s{{ i }}._k_off = 1 or _k_combo._k_cross{{ 1 - i }} = 1){% endif %}
    {%- endfor %}
    left join _k_u as _k_x
      on {% for i in range(n) %}_k_x._k_d{{ i }} = _k_s{{ i }}._k_s{% if not loop.last %} and {% endif %}{% endfor %}
    where {{ offs }} >= 2 or ({{ offs }} = 1 and {% for i in range(n) %}_k_s{{ i }}._k_off * _k_combo._k_cross{{ i }}
    {%- if not loop.last %} + {% endif %}{% endfor %} = 1)
  )

  {#- a cube protects when every corner off the lines can go the way the lines can -#}
  select
    {{ targets_of(n, '_k_c') }},
    _k_c._k_pn,
    {%- for i in range(n) %}
    _k_c._k_a{{ i }},
    _k_c._k_b{{ i }},
    {%- endfor %}
    _k_c._k_axcost + sum(case when _k_c._k_is_off = 1 then coalesce(_k_c._k_cost, 0) else 0 end) as _k_cost
  from _k_corner as _k_c
  group by {{ targets_of(n, '_k_c') }}, _k_c._k_pn{% for i in range(n) %}, _k_c._k_a{{ i }}, _k_c._k_b{{ i }}
  {%- endfor %}, _k_c._k_axcost, _k_c._k_off,
    _k_c._k_rise, _k_c._k_fall
  having
    sum(_k_c._k_is_off) = _k_c._k_off and min(_k_c._k_found) = 1
    and least(_k_c._k_rise, min(_k_c._k_up_room)) + least(_k_c._k_fall, min(_k_c._k_down_room)) >= {{ step }}
{%- endmacro %}

{#- `least(<expr 0>, ..., <expr n-1>)`: `expression` a format with {i}. -#}
{% macro _table_least(n, expression) -%}
  {%- if n == 1 -%}{{ expression.replace('{i}', '0') }}{%- else -%}
  least({% for i in range(n) %}{{ expression.replace('{i}', i | string) }}{% if not loop.last %}, {% endif %}
  {%- endfor %})
  {%- endif -%}
{%- endmacro %}
