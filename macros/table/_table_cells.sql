{#-
  The cells of a table with totals, as CTEs ending in _k_table: one row per cell, every
  combination of every dimension's nodes. A node of dimension i is (_k_l<i>, _k_k<i>): its
  level (0 a value of the column, up to the dimension's top, the total) and its key (the value
  as text, NULL as _null_key(), so that it joins; a label of its hierarchy above; '' for the
  total); _k_pk<i> is its parent's key (the parent's level is one more; NULL for the total).
  The search (on a temporary table built from these CTEs), the long form and the gate compute
  the same counts with the same SQL.

    _k_n          the count: distinct people of the events under the cell in every dimension
                  (rows with count_rows); a cell without events is 0, a zero that is shown
                  unless hide_zeros
    _k_add<i>     for a cell that is a total along dimension i (_k_l<i> > 0): whether it is the
                  sum of its children along i, decided from the data (no person in two of them);
                  NULL for a cell at a value of i. When one person is in several children the
                  total is below their sum, and max(child) <= total <= sum(children) is all
                  that holds
    _k_cap<i>     where the cell's own line along i (its parent along i and its siblings) is
                  not additive: its parent's count, which the cell cannot rise past unless the
                  parent rises too; else NULL
    _k_floor<i>   where the cell is a total along i whose children are not additive: its
                  largest child, which the cell cannot fall to; else NULL
    _k_next<i>, _k_topk<i>  for a total along i: its largest child but one (the largest
                  again when two share it), and the key of the largest when it is one child's:
                  the total may fall to _k_next<i> when that child falls with it
    _k_sum<i>, _k_max<i>  for a total along i: its children's sum and largest (the gate's
                  recount checks max <= total <= sum); NULL at a value of i
    _k_status     'primary' (0 < count < k, or 0 with hide_zeros), 'secondary' (one of the
                  given cells hidden so that no primary can be worked out) or 'published'

    _k_cell_key   with `noise` only: the sum of the cell's distinct people's record keys modulo
                  2^32 (_noise_group_count), counted in the pass that counts the cell, so every
                  total and subtotal gets its own people's key (0 for a cell without events)

  secondaries: the cells hidden as secondaries, as the name of a relation with _k_l<i> and
  _k_k<i> for every dimension (_table_search's temporary table, read in the same session), or as
  SQL rows '(<level 0>, <key 0>, <level 1>, <key 1>, ...)' (the integration tests' hand-made
  patterns); none or empty for none.
  noise: the resolved noise of a noisy release's long form (the search counts without keys).
-#}
{% macro _table_cells_ctes(plan, secondaries=none, noise=none) %}
  {%- set n = plan.dims | length -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
{{ kanon._table_events_cte(plan) }},

{%- if noise is not none %}
{{ kanon._noise_ctes(noise, '_k_events') }},

{% endif -%}
{%- if plan.get('linked') %}
{{ kanon._table_linked_cte(plan) }},

{% endif -%}
{% for d in plan.dims -%}
{%- set i = loop.index0 -%}
{%- if plan.get('linked') and i == plan.linked.glued -%}
{{ kanon._table_glued_chain_ctes(plan, d, i) }}
{%- else -%}
{{ kanon._table_chain_cte(d, i, '_k_events') }},
{%- endif %}

{#- the dimension's nodes: every level of the values that have events -#}
_k_nodes{{ i }} as (
  select distinct _k_l, _k_k, _k_pk from _k_chain{{ i }}
),

{% endfor -%}
{{ kanon._table_counted_cte(plan, noise) }},

{#- every combination of nodes, with zeros: a cell without events is published as 0 or hidden -#}
_k_cells as (
  select
    {%- for i in range(n) %}
    _k_n{{ i }}._k_l as _k_l{{ i }},
    _k_n{{ i }}._k_k as _k_k{{ i }},
    _k_n{{ i }}._k_pk as _k_pk{{ i }},
    {%- endfor %}
    coalesce(_k_counted._k_n, 0) as _k_n
    {%- if noise is not none %},
    {#- a cell without people: the sum of no record keys -#}
    coalesce(_k_counted._k_cell_key, 0) as _k_cell_key
    {%- endif %}
  from _k_nodes0 as _k_n0
  {%- for i in range(1, n) %}
  cross join _k_nodes{{ i }} as _k_n{{ i }}
  {%- endfor %}
  left join _k_counted
    on {% for i in range(n) %}_k_counted._k_l{{ i }} = _k_n{{ i }}._k_l and _k_counted._k_k{{ i }} = _k_n{{ i }}._k_k
    {%- if not loop.last %} and {% endif %}{% endfor %}
),

_k_secondary as (
  {%- if secondaries is string %}
  select {% for i in range(n) %}_k_s._k_l{{ i }}, _k_s._k_k{{ i }}{% if not loop.last %}, {% endif %}
  {%- endfor %} from {{ secondaries }} as _k_s
  {%- elif secondaries %}
  select {% for i in range(n) %}_k_s._k_l{{ i }}, _k_s._k_k{{ i }}{% if not loop.last %}, {% endif %}
  {%- endfor %} from (values
    {%- for row in secondaries %}
    {{ row }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  ) as _k_s ({% for i in range(n) %}_k_l{{ i }}, _k_k{{ i }}{% if not loop.last %}, {% endif %}{% endfor %})
  {%- else %}
  {{ kanon._table_no_cells(n) }}
  {%- endif %}
),

{#- each cell's status; a linked table's cells, and this table's shared roots, keep the statuses
    the linked mart publishes and cannot be hidden anew (_k_fixed: _table_linked_marks) -#}
{%- set linked = kanon._table_linked_marks(plan) %}
_k_marked as (
  select
    _k_cells.*,
    case
      {{- linked.statuses }}
      when _k_cells._k_n >= {{ lo }} and _k_cells._k_n < {{ plan.k }} then 'primary'
      when _k_secondary._k_l0 is not null then 'secondary'
      else 'published'
    end as _k_status,
    {{ linked.fixed }} as _k_fixed
  from _k_cells
  left join _k_secondary
    on {% for i in range(n) %}_k_secondary._k_l{{ i }} = _k_cells._k_l{{ i }}
      {{- ' and ' }}_k_secondary._k_k{{ i }} = _k_cells._k_k{{ i }}
    {%- if not loop.last %} and {% endif %}{% endfor %}
    {{- linked.joins }}
),

{{ kanon._table_with_bounds('_k_marked', '_k_table', n) }}
{%- endmacro %}

{#- `_k_counted as (...)`: every cell that has events, with its count (_k_n: distinct people, or
    rows with count_rows) and, with `noise`, its cell key (_k_cell_key: _noise_group_count, in
    the same pass). -#}
{% macro _table_counted_cte(plan, noise=none) %}
  {%- set n = plan.dims | length -%}
  {%- set counted = 'count(*)' if plan.count_rows else 'count(distinct _k_events._k_person)' -%}
{%- set expanded -%}
  from _k_events
  {%- for i in range(n) %}
  inner join _k_chain{{ i }} as _k_c{{ i }} on _k_c{{ i }}._k_leaf = _k_events._k_v{{ i }}
  {%- endfor %}
{%- endset %}
_k_counted as (
  {%- if noise is not none %}
  {%- set keys = [] -%}
  {%- for i in range(n) -%}{%- do keys.extend(['_k_l' ~ i, '_k_k' ~ i]) -%}{%- endfor %}
  select {{ keys | join(', ') }}, _k_count as _k_n, _k_cell_key from (
    {{ kanon._noise_group_count(keys, '(select ' ~ kanon._table_cell_nodes(n) ~ ', _k_events._k_person ' ~ expanded
        ~ ') as _k_expanded') }}
  ) as _k_keyed
  {%- else %}
  select
    {{ kanon._table_cell_nodes(n) }},
    {{ counted }} as _k_n
  {{ expanded }}
  group by {% for i in range(n) %}_k_c{{ i }}._k_l, _k_c{{ i }}._k_k{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
)
{%- endmacro %}

{#- Each dimension's node of the events' chains, as a cell's columns: `_k_c<i>._k_l as _k_l<i>,
    _k_c<i>._k_k as _k_k<i>, ...`. -#}
{% macro _table_cell_nodes(n) -%}
  {%- for i in range(n) %}_k_c{{ i }}._k_l as _k_l{{ i }}, _k_c{{ i }}._k_k as _k_k{{ i }}
  {%- if not loop.last %}, {% endif %}{% endfor -%}
{%- endmacro %}

{#- `_k_events as (...)`: the events, each dimension's value as text (_k_v<i>, NULL as
    _null_key()) and its person (_k_person). An event without a person belongs to nobody that
    can be counted: left out (null_unit). -#}
{% macro _table_events_cte(plan) %}
  {%- set q = kanon._quote -%}
  {%- set z = plan.linked.glued if plan.get('linked') else none -%}
_k_events as (
  {%- for side, glued in ([('2', plan.dims[z].column), ('1', plan.linked.column)]
      if z is not none else [(none, none)]) %}
  {% if not loop.first %}union all
  {% endif -%}
  select
    {%- for d in plan.dims %}
    {%- set value = 'coalesce(cast(' ~ q(glued if loop.index0 == z else d.column) ~ ' as ' ~ dbt.type_string() ~ '), '
        ~ kanon._null_key() ~ ')' %}
    {{ ("'" ~ side ~ "' || " ~ value) if loop.index0 == z else value }} as _k_v{{ loop.index0 }},
    {%- endfor %}
    {{ ('1' if plan.count_rows else q(plan.privacy_unit)) }} as _k_person
  from {{ plan.relation }}
  {%- if not plan.count_rows %}
  where {{ q(plan.privacy_unit) }} is not null
  {%- endif %}
  {%- endfor %}
)
{%- endmacro %}

{#- `_k_chain<i> as (...)` (or `name`): every value of dimension `d` (column _k_v<i> of `events`)
    with its node at every level: (_k_leaf, _k_l, _k_k, _k_pk). A flat dimension: the value, then
    the total. With a hierarchy: the value's row of it, label by label, the top level being the
    total; a value the hierarchy does not hold has no chain, so its events are in no cell (the
    search refuses such a table: _table_search_refusal). With `prefix` (SQL text: a linked
    table's side, _table_linked), only the events' values of that side, and every key prefixed. -#}
{% macro _table_chain_cte(d, i, events, prefix=none, name=none) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set total = "cast('' as " ~ string ~ ")" -%}
  {%- set mark = (prefix ~ ' || ') if prefix is not none else '' -%}
  {%- set side = (' where substr(_k_v' ~ i ~ ', 1, 1) = ' ~ prefix) if prefix is not none else '' -%}
  {%- if d.hierarchy is none -%}
{{ name or ('_k_chain' ~ i) }} as (
  select distinct _k_v{{ i }} as _k_leaf, 0 as _k_l, _k_v{{ i }} as _k_k
    {{- ', ' }}{{ mark }}{{ total }} as _k_pk from {{ events }}{{ side }}
  union all
  select distinct _k_v{{ i }} as _k_leaf, 1 as _k_l, {{ mark }}{{ total }} as _k_k
    {{- ', ' }}cast(null as {{ string }}) as _k_pk from {{ events }}{{ side }}
)
  {%- else -%}
  {%- set label = "coalesce(cast(_k_h." ~ '{c}' ~ " as " ~ string ~ "), " ~ nk ~ ")" -%}
  {%- set leaf = mark ~ label.replace('{c}', q(d.level_columns[0])) -%}
{{ name or ('_k_chain' ~ i) }} as (
  {%- for column in d.level_columns %}
  {%- set level = loop.index0 %}
  {% if not loop.first %}union all
  {% endif -%}
  select distinct
    {{ leaf }} as _k_leaf,
    {{ level }} as _k_l,
    {{ mark }}{{ total if loop.last else label.replace('{c}', q(column)) }} as _k_k,
    {{ ("cast(null as " ~ string ~ ")")
        if loop.last else (mark
        ~ (total if level + 1 == d.top else label.replace('{c}', q(d.level_columns[level + 1])))) }} as _k_pk
  from {{ d.hierarchy }} as _k_h
  where {{ leaf }} in (select _k_v{{ i }} from {{ events }})
  {%- endfor %}
)
  {%- endif -%}
{%- endmacro %}

{#- CTEs ending in `name`: the cells of `source` (_k_l<i>, _k_k<i>, _k_pk<i>, _k_n, ...) with, for
    every dimension i, whether a total is the sum of its children (_k_add<i>) and the bounds a
    line that is not additive puts on its cells (_k_cap<i>, _k_floor<i>; see _table_cells_ctes).
    A line along i: a node P of i and its children, every other coordinate fixed. Shared by the
    search, the long form and the gate. -#}
{% macro _table_with_bounds(source, name, n) -%}
{%- for i in range(n) %}
{#- each line along i: its total's coordinates (the parent's level and key), its children's sum
    and largest, and the total's own count -#}
_k_lb{{ i }} as (
  select
    {%- for j in range(n) if j != i %}
    _k_c._k_l{{ j }}, _k_c._k_k{{ j }},
    {%- endfor %}
    _k_c._k_l{{ i }} + 1 as _k_tl,
    _k_c._k_pk{{ i }} as _k_tk,
    sum(_k_c._k_n) as _k_sum,
    max(_k_c._k_n) as _k_max
  from {{ source }} as _k_c
  where _k_c._k_pk{{ i }} is not null
  group by {% for j in range(n) if j != i %}_k_c._k_l{{ j }}, _k_c._k_k{{ j }}, {% endfor %}_k_c._k_l{{ i }}
    {{- ', ' }}_k_c._k_pk{{ i }}
),

{#- its largest child but one (the largest again when two share it) and, when one child alone
    is the largest, that child's key: a total may fall to the next largest when the largest
    falls with it -#}
_k_lm{{ i }} as (
  select
    {%- for j in range(n) if j != i %}
    _k_b._k_l{{ j }}, _k_b._k_k{{ j }},
    {%- endfor %}
    _k_b._k_tl,
    _k_b._k_tk,
    case when sum(case when _k_c._k_n = _k_b._k_max then 1 else 0 end) > 1 then max(_k_b._k_max)
      else coalesce(max(case when _k_c._k_n < _k_b._k_max then _k_c._k_n end), 0) end as _k_next,
    case when sum(case when _k_c._k_n = _k_b._k_max then 1 else 0 end) = 1
      then min(case when _k_c._k_n = _k_b._k_max then _k_c._k_k{{ i }} end) end as _k_topk
  from _k_lb{{ i }} as _k_b
  inner join {{ source }} as _k_c
    on _k_c._k_l{{ i }} + 1 = _k_b._k_tl and _k_c._k_pk{{ i }} = _k_b._k_tk
    {%- for j in range(n) if j != i %} and _k_c._k_l{{ j }} = _k_b._k_l{{ j }} and _k_c._k_k{{ j }} = _k_b._k_k{{ j }}
    {%- endfor %}
  group by {% for j in range(n) if j != i %}_k_b._k_l{{ j }}, _k_b._k_k{{ j }}, {% endfor %}_k_b._k_tl, _k_b._k_tk
),

_k_lt{{ i }} as (
  select _k_lb{{ i }}.*, _k_t._k_n as _k_tn, _k_lm{{ i }}._k_next, _k_lm{{ i }}._k_topk
  from _k_lb{{ i }}
  inner join _k_lm{{ i }}
    on _k_lm{{ i }}._k_tl = _k_lb{{ i }}._k_tl and _k_lm{{ i }}._k_tk = _k_lb{{ i }}._k_tk
    {%- for j in range(n) if j != i %} and _k_lm{{ i }}._k_l{{ j }} = _k_lb{{ i }}._k_l{{ j }}
      {{- ' and ' }}_k_lm{{ i }}._k_k{{ j }} = _k_lb{{ i }}._k_k{{ j }}{% endfor %}
  inner join {{ source }} as _k_t
    on _k_t._k_l{{ i }} = _k_lb{{ i }}._k_tl and _k_t._k_k{{ i }} = _k_lb{{ i }}._k_tk
    {%- for j in range(n) if j != i %} and _k_t._k_l{{ j }} = _k_lb{{ i }}._k_l{{ j }}
      {{- ' and ' }}_k_t._k_k{{ j }} = _k_lb{{ i }}._k_k{{ j }}{% endfor %}
),

{% endfor -%}
{{ name }} as (
  select
    _k_s.*
    {%- for i in range(n) %},
    case when _k_s._k_l{{ i }} > 0 then _k_own{{ i }}._k_sum = _k_s._k_n end as _k_add{{ i }},
    case when _k_up{{ i }}._k_tn < _k_up{{ i }}._k_sum then _k_up{{ i }}._k_tn end as _k_cap{{ i }},
    case when _k_s._k_n < _k_own{{ i }}._k_sum then _k_own{{ i }}._k_max end as _k_floor{{ i }},
    _k_own{{ i }}._k_next as _k_next{{ i }},
    _k_own{{ i }}._k_topk as _k_topk{{ i }},
    _k_own{{ i }}._k_sum as _k_sum{{ i }},
    _k_own{{ i }}._k_max as _k_max{{ i }}
    {%- endfor %}
  from {{ source }} as _k_s
  {%- for i in range(n) %}
  left join _k_lt{{ i }} as _k_own{{ i }}
    on _k_own{{ i }}._k_tl = _k_s._k_l{{ i }} and _k_own{{ i }}._k_tk = _k_s._k_k{{ i }}
    {%- for j in range(n) if j != i %} and _k_own{{ i }}._k_l{{ j }} = _k_s._k_l{{ j }}
      {{- ' and ' }}_k_own{{ i }}._k_k{{ j }} = _k_s._k_k{{ j }}{% endfor %}
  left join _k_lt{{ i }} as _k_up{{ i }}
    on _k_up{{ i }}._k_tl = _k_s._k_l{{ i }} + 1 and _k_up{{ i }}._k_tk = _k_s._k_pk{{ i }}
    {%- for j in range(n) if j != i %} and _k_up{{ i }}._k_l{{ j }} = _k_s._k_l{{ j }}
      {{- ' and ' }}_k_up{{ i }}._k_k{{ j }} = _k_s._k_k{{ j }}{% endfor %}
  {%- endfor %}
)
{%- endmacro %}
