{#-
  The cells of a table numbered by node, as the cube engine joins them (_table_cubes.sql): each
  dimension's nodes as whole numbers (_k_d<i>) and each leaf's path to the top (`anc`<i>). The
  search and the gate's no_exact_disclosure number cells the same way, on scratch tables.
-#}

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
  left join _k_ids{{ i }} as _k_t{{ i }} on _k_t{{ i }}._k_l = _k_s._k_l{{ i }} - 1
    {{- ' and ' }}_k_t{{ i }}._k_k = _k_s._k_topk{{ i }}
  {%- endfor %}
)
{%- endmacro %}

{#- Temporary tables of the cells of `cells` (a table) numbered by node, `t` (with `extra`
    columns, SQL after the cells' own), and of every leaf's path to the top, `anc`<i>
    (_table_numbered_ctes), with their statistics: what the search and the gate's
    no_exact_disclosure join, many times over, so each is computed once. -#}
{% macro _table_numbered_tables(cells, tops, t, anc, extra='') %}
  {%- set numbered = kanon._table_numbered_ctes(cells, tops, '_k_numbered', '_k_anc') -%}
  {%- do kanon._scratch_create(t, 'with ' ~ numbered ~ ' select _k_numbered.*' ~ extra ~ ' from _k_numbered') -%}
  {%- do kanon._scratch_analyze(t) -%}
  {%- for i in range(tops | length) -%}
    {%- do kanon._scratch_create(anc ~ i, 'with ' ~ numbered ~ ' select * from _k_anc' ~ i) -%}
    {%- do kanon._scratch_analyze(anc ~ i) -%}
  {%- endfor -%}
{% endmacro %}
