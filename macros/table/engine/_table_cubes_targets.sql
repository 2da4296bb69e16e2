{#-
  The first CTEs of _table_cubes_sql (each followed by a comma): what a cube is sought for, and
  the cells it may use.

    _k_p  the targets: each cell a cube is sought through, its node along each dimension as
          _k_p<i>, its level _k_pl<i>, its count _k_pn
    _k_u  the usable cells: hidden ones, and with `may_hide` published ones of at least k that are
          not fixed, each with what hiding it costs (_k_cost: its count when published) and
          whether it would be newly hidden (_k_new)

  Below it, the SQL over a relation's target columns (_k_p<j>) that the engine and the search's
  steps share.
-#}
{% macro _table_cubes_target_ctes(arg_dict) -%}
  {%- set n, cells, targets, k = arg_dict.n, arg_dict.cells, arg_dict.targets, arg_dict.k -%}
  _k_p as (
    select
      {%- for i in range(n) %}
      _k_t._k_d{{ i }} as _k_p{{ i }},
      _k_t._k_l{{ i }} as _k_pl{{ i }},
      {%- endfor %}
      _k_t._k_n as _k_pn
    from {{ targets }} as _k_t
  ),

  _k_u as (
    select
      _k_x.*,
      case when _k_x._k_status = 'published' then _k_x._k_n else 0 end as _k_cost,
      case when _k_x._k_status = 'published' then 1 else 0 end as _k_new
    from {{ cells }} as _k_x
    where _k_x._k_status <> 'published'{% if arg_dict.may_hide %} or (_k_x._k_n >= {{ k }} and _k_x._k_fixed = 0)
    {%- endif %}
  ),
{%- endmacro %}

{#- `a._k_p0, a._k_p1, ...` -#}
{% macro _table_target_columns(n, a) -%}
  {%- for j in range(n) -%}{{ a }}._k_p{{ j }}{% if not loop.last %}, {% endif %}{%- endfor -%}
{%- endmacro %}

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
  exists (select 1 from _k_p where {% for j in range(n) if j != i %}_k_p._k_p{{ j }} = {{ x }}._k_d{{ j }}
  {%- if not loop.last %} and {% endif %}{% endfor %})
{%- endmacro %}
