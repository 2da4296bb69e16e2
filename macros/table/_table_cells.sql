{#-
  The cells of a two-way table with its totals, as CTEs ending in _k_table: one row per cell and
  per total, each keyed by its row and column as (level, key): level 0 a category, whose key is
  its label as text (NULL as _null_key(), so that it joins), level 1 the total of that line,
  whose key is ''. The search (on a temporary table built from these CTEs) and the long form
  compute the same counts with the same SQL.

    _k_n         the count: distinct people of the cell's events (rows with count_rows); a cell
                 without events is 0, a zero that is shown unless hide_zeros
    _k_sign      +1 or -1: the sign under which the cell enters its lines' equations (a total
                 enters its own line with -1, the grand total both with -1 twice). Cells
                 hidden on a rectangle move by +t, -t, -t, +t times their signs, which keeps
                 every line's sum, so the rectangle hides them from the totals.
    _k_additive  for a total: whether it is the sum of its parts, decided from the data (no
                 person falls in two cells of the line, so the distinct count equals the sum);
                 the grand total is additive when it is the sum of both its lines. NULL for a
                 cell. When one person is in several cells of a line the total is below the
                 sum, and max(part) <= total <= sum(parts) is all that holds.
    _k_status    'primary' (0 < count < k, or 0 with hide_zeros), 'secondary' (one of the
                 given cells hidden so that no primary can be worked out) or 'published'

  secondaries: the cells hidden as secondaries, as the name of a relation with _k_rl, _k_r, _k_cl
  and _k_c (_table_search's temporary table, read in the same session), or as SQL rows
  '(<row level>, <row key>, <column level>, <column key>)' (the integration tests' hand-made
  patterns); none or empty for none.
-#}
{% macro _table_cells_ctes(plan, secondaries=none) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set counted = 'count(*)' if plan.count_rows else 'count(distinct _k_person)' -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
_k_events as (
  {#- an event without a person belongs to nobody that can be counted: left out (null_unit) -#}
  select
    coalesce(cast({{ q(plan.row.column) }} as {{ string }}), {{ nk }}) as _k_r,
    coalesce(cast({{ q(plan.column.column) }} as {{ string }}), {{ nk }}) as _k_c,
    {{ ('1' if plan.count_rows else q(plan.privacy_unit)) }} as _k_person
  from {{ plan.relation }}
  {%- if not plan.count_rows %}
  where {{ q(plan.privacy_unit) }} is not null
  {%- endif %}
),

_k_counted as (
  select 0 as _k_rl, _k_r, 0 as _k_cl, _k_c, {{ counted }} as _k_n from _k_events group by _k_r, _k_c
  union all
  select 0 as _k_rl, _k_r, 1 as _k_cl, cast('' as {{ string }}) as _k_c, {{ counted }} as _k_n from _k_events group by _k_r
  union all
  select 1 as _k_rl, cast('' as {{ string }}) as _k_r, 0 as _k_cl, _k_c, {{ counted }} as _k_n from _k_events group by _k_c
  union all
  select 1 as _k_rl, cast('' as {{ string }}) as _k_r, 1 as _k_cl, cast('' as {{ string }}) as _k_c, {{ counted }} as _k_n
  from _k_events having count(*) > 0
),

{#- every row x every column, with zeros: a cell without events is published as 0 or hidden -#}
_k_row_keys as (select distinct _k_r from _k_events),

_k_column_keys as (select distinct _k_c from _k_events),

_k_grid as (
  select 0 as _k_rl, _k_row_keys._k_r, 0 as _k_cl, _k_column_keys._k_c
  from _k_row_keys cross join _k_column_keys
  union all
  select 0 as _k_rl, _k_r, 1 as _k_cl, cast('' as {{ string }}) as _k_c from _k_row_keys
  union all
  select 1 as _k_rl, cast('' as {{ string }}) as _k_r, 0 as _k_cl, _k_c from _k_column_keys
  union all
  select 1 as _k_rl, cast('' as {{ string }}) as _k_r, 1 as _k_cl, cast('' as {{ string }}) as _k_c
  from (select count(*) as _k_events from _k_events) as _k_any
  where _k_events > 0
),

_k_cells as (
  select
    _k_grid._k_rl,
    _k_grid._k_r,
    _k_grid._k_cl,
    _k_grid._k_c,
    coalesce(_k_counted._k_n, 0) as _k_n
  from _k_grid
  left join _k_counted
    on
      _k_counted._k_rl = _k_grid._k_rl and _k_counted._k_r = _k_grid._k_r
      and _k_counted._k_cl = _k_grid._k_cl and _k_counted._k_c = _k_grid._k_c
),

{#- each line's sum of parts: a row's cells (the total row's: the column totals), a column's -#}
_k_row_sums as (
  select _k_rl, _k_r, sum(_k_n) as _k_sum from _k_cells where _k_cl = 0 group by _k_rl, _k_r
),

_k_column_sums as (
  select _k_cl, _k_c, sum(_k_n) as _k_sum from _k_cells where _k_rl = 0 group by _k_cl, _k_c
),

_k_secondary as (
  {%- if secondaries is string %}
  select _k_s._k_rl, _k_s._k_r, _k_s._k_cl, _k_s._k_c from {{ secondaries }} as _k_s
  {%- elif secondaries %}
  select _k_s._k_rl, _k_s._k_r, _k_s._k_cl, _k_s._k_c from (values
    {%- for row in secondaries %}
    {{ row }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  ) as _k_s (_k_rl, _k_r, _k_cl, _k_c)
  {%- else %}
  select 0 as _k_rl, cast('' as {{ string }}) as _k_r, 0 as _k_cl, cast('' as {{ string }}) as _k_c where 1 = 0
  {%- endif %}
),

_k_marked as (
  select
    _k_cells._k_rl,
    _k_cells._k_r,
    _k_cells._k_cl,
    _k_cells._k_c,
    _k_cells._k_n,
    (1 - 2 * _k_cells._k_rl) * (1 - 2 * _k_cells._k_cl) as _k_sign,
    case
      when _k_cells._k_rl = 0 and _k_cells._k_cl = 0 then null
      when _k_cells._k_cl = 1 and _k_cells._k_rl = 0 then _k_row_sums._k_sum = _k_cells._k_n
      when _k_cells._k_rl = 1 and _k_cells._k_cl = 0 then _k_column_sums._k_sum = _k_cells._k_n
      else _k_row_sums._k_sum = _k_cells._k_n and _k_column_sums._k_sum = _k_cells._k_n
    end as _k_additive,
    case
      when _k_cells._k_n >= {{ lo }} and _k_cells._k_n < {{ plan.k }} then 'primary'
      when _k_secondary._k_rl is not null then 'secondary'
      else 'published'
    end as _k_status
  from _k_cells
  left join _k_row_sums
    on _k_row_sums._k_rl = _k_cells._k_rl and _k_row_sums._k_r = _k_cells._k_r
  left join _k_column_sums
    on _k_column_sums._k_cl = _k_cells._k_cl and _k_column_sums._k_c = _k_cells._k_c
  left join _k_secondary
    on
      _k_secondary._k_rl = _k_cells._k_rl and _k_secondary._k_r = _k_cells._k_r
      and _k_secondary._k_cl = _k_cells._k_cl and _k_secondary._k_c = _k_cells._k_c
),

{{ kanon._table_with_bounds('_k_marked', '_k_table') }}
{%- endmacro %}

{#- CTEs ending in `name`: the cells of `source` (_k_rl, _k_r, _k_cl, _k_c, _k_n, ...) with what
    their lines' totals bound them by where a line is not additive (its total below the sum of
    its parts, some person in several parts), where only max(part) <= total <= sum(parts) holds:
      _k_row_cap, _k_column_cap      a part's line total: the part cannot rise to it unless the
                                     total rises too (NULL in an additive line, or not a part)
      _k_row_floor, _k_column_floor  a line total's largest part: the total cannot fall below it
                                     (below the next largest, _k_*_floor_next, when the largest
                                     is the corner beside it, which falls with it)
  A cell is a part of its row's line when it is not that line's total (_k_cl = 0), of its
  column's when _k_rl = 0. Shared by the search and the gate (_table_rectangles). -#}
{% macro _table_with_bounds(source, name) -%}
{{ kanon._table_line_bounds_ctes(source, 'rows', '_k_rl', '_k_r', '_k_cl') }}
{{ kanon._table_line_bounds_ctes(source, 'columns', '_k_cl', '_k_c', '_k_rl') }}
_k_lb_row_totals as (
  select _k_rl, _k_r, _k_n from {{ source }} where _k_cl = 1
),

_k_lb_column_totals as (
  select _k_cl, _k_c, _k_n from {{ source }} where _k_rl = 1
),

{{ name }} as (
  select
    _k_s.*,
    case when _k_s._k_cl = 0 and _k_lb_row_totals._k_n < _k_lb_rows._k_sum then _k_lb_row_totals._k_n end as _k_row_cap,
    case when _k_s._k_rl = 0 and _k_lb_column_totals._k_n < _k_lb_columns._k_sum then _k_lb_column_totals._k_n end as _k_column_cap,
    case when _k_s._k_cl = 1 and _k_s._k_n < _k_lb_rows._k_sum then _k_lb_rows._k_max end as _k_row_floor,
    case when _k_s._k_rl = 1 and _k_s._k_n < _k_lb_columns._k_sum then _k_lb_columns._k_max end as _k_column_floor,
    _k_lb_rows_next._k_next as _k_row_floor_next,
    _k_lb_columns_next._k_next as _k_column_floor_next
  from {{ source }} as _k_s
  left join _k_lb_rows on _k_lb_rows._k_rl = _k_s._k_rl and _k_lb_rows._k_r = _k_s._k_r
  left join _k_lb_columns on _k_lb_columns._k_cl = _k_s._k_cl and _k_lb_columns._k_c = _k_s._k_c
  left join _k_lb_rows_next on _k_lb_rows_next._k_rl = _k_s._k_rl and _k_lb_rows_next._k_r = _k_s._k_r
  left join _k_lb_columns_next on _k_lb_columns_next._k_cl = _k_s._k_cl and _k_lb_columns_next._k_c = _k_s._k_c
  left join _k_lb_row_totals on _k_lb_row_totals._k_rl = _k_s._k_rl and _k_lb_row_totals._k_r = _k_s._k_r
  left join _k_lb_column_totals on _k_lb_column_totals._k_cl = _k_s._k_cl and _k_lb_column_totals._k_c = _k_s._k_c
)
{%- endmacro %}

{#- `_k_lb_<lines>` (each line's sum and largest part) and `_k_lb_<lines>_next` (its largest part
    but one: the largest again when two parts share it, else the next, 0 alone), each followed by
    a comma: the lines of `source` keyed by (level, key), their parts the cells whose `other`
    level is 0 (rows: _k_rl, _k_r, parts _k_cl = 0; columns: _k_cl, _k_c, parts _k_rl = 0). -#}
{% macro _table_line_bounds_ctes(source, lines, level, key, other) -%}
_k_lb_{{ lines }} as (
  select {{ level }}, {{ key }}, sum(_k_n) as _k_sum, max(_k_n) as _k_max from {{ source }} where {{ other }} = 0 group by {{ level }}, {{ key }}
),

_k_lb_{{ lines }}_next as (
  select
    _k_p.{{ level }},
    _k_p.{{ key }},
    case
      when sum(case when _k_p._k_n = _k_m._k_max then 1 else 0 end) > 1 then max(_k_m._k_max)
      else coalesce(max(case when _k_p._k_n < _k_m._k_max then _k_p._k_n end), 0)
    end as _k_next
  from {{ source }} as _k_p
  inner join _k_lb_{{ lines }} as _k_m on _k_m.{{ level }} = _k_p.{{ level }} and _k_m.{{ key }} = _k_p.{{ key }}
  where _k_p.{{ other }} = 0
  group by _k_p.{{ level }}, _k_p.{{ key }}
),
{%- endmacro %}
