{#- Step 3 of the engine: the ladder. For each step S >= 1:

  _k_rest_S         the events of the finest cells still thin after step S-1. Step 1 joins the
                    events to the raw cells of the thin finest cells (_k_thin_raw_cells_0); step 2
                    to those still thin after step 1 (few, after a good first step: it fetches
                    every label with them, _k_thin_raw_cells_1); later steps follow their events.
                    _k_rest_<last + 1>, when asked for, holds the suppressed events
  _k_groups_S       those events grouped at step S's levels and recounted in distinct people
                    (counts of people do not add up)
  _k_climb_S        the finest cells thin after step S-1, each with its step-S group's count
                    (_k_step_count) and dominance (_k_step_dominated)
  _k_thin_S         the finest cells still thin after step S (_k_thin_0: after step 0). A thin
                    cell's events stay together, so each finest cell has one fate

  thin_through: the last step whose _k_thin_S is built (-1: none). -#}
{% macro _counts_ladder_ctes(plan, names, thin_through, with_rest) %}
  {%- set materialized = kanon._cte_materialized(true) -%}
  {%- set last = names.last -%}
  {%- set keys_1 = names.step_keys[1] if last >= 1 else [] -%}
  {%- set pieces = [] -%}
  {%- if last > 0 or with_rest -%}
    {#- The raw cells of the thin finest cells, with their step-1 key (a thin raw cell that was not
        merged is a thin finest cell). Materialized: the events are joined to it once; written as
        a filter of _k_raw_cells, so that planners size it by _k_raw_cells and hash it, not the
        events. -#}
    {%- set piece -%}
  _k_thin_raw_cells_0 as {{ materialized }} (
    select
      {%- for column in names.raw_keys + keys_1 %}
      _k_raw_cell.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_raw_cells as _k_raw_cell
    where
      ({{ kanon._counts_is_thin(plan, '_k_raw_cell') }} and _k_raw_cell._k_merge = 0)
      or (_k_raw_cell._k_merge = 1 and exists (
        select 1 from _k_merged_cells as _k_merged_cell
        where
        {{ kanon._counts_keys_equal(['_k_merge'] + names.step_keys[0], '_k_merged_cell', '_k_raw_cell') }} and
          {{ kanon._counts_is_thin(plan, '_k_merged_cell') }}
      ))
  ),
  {#- their events: the one extra pass over the events, streamed into step 1's recount -#}
  _k_rest_1 as {{ kanon._cte_materialized(false) }} (
    select
      {{ names.event_columns }}
      {%- for column in keys_1 %},
      _k_thin_raw_cell.{{ column }}
      {%- endfor %}
    from _k_events as _k_event
    inner join _k_thin_raw_cells_0 as _k_thin_raw_cell
      on
      {{ kanon._counts_keys_equal(names.raw_keys, '_k_event', '_k_thin_raw_cell') }}
  )
    {%- endset -%}
    {%- do pieces.append(piece) -%}
  {%- endif -%}
  {%- if thin_through >= 0 -%}
    {%- set piece -%}
  _k_thin_0 as {{ kanon._cte_materialized(false) }} (
    select {{ names.label_columns | join(', ') }}, _k_count
    from _k_groups_0
    where {{ kanon._counts_is_thin(plan) }}
  )
    {%- endset -%}
    {%- do pieces.append(piece) -%}
  {%- endif -%}
  {%- for s in range(1, last + 1) -%}
    {%- set keys = names.step_keys[s] -%}
    {%- set piece -%}
  _k_groups_{{ s }} as {{ materialized }} (
    {{ kanon._counts_groups(plan, '_k_rest_' ~ s, keys) }}
  )
  {%- if s <= thin_through %},
  _k_climb_{{ s }} as {{ kanon._cte_materialized(false) }} (
    select
      {%- for column in names.label_columns %}
      _k_cell.{{ column }},
      {%- endfor %}
      _k_cell._k_count,
      _k_group._k_count as _k_step_count
      {%- if plan.dominance is not none %},
      _k_group._k_dominated as _k_step_dominated
      {%- endif %}
    from _k_thin_{{ s - 1 }} as _k_cell
    inner join _k_groups_{{ s }} as _k_group
      on
      {{ kanon._counts_keys_equal(keys, '_k_cell', '_k_group') }}
  ),
  _k_thin_{{ s }} as {{ materialized }} (
    select {{ names.label_columns | join(', ') }}, _k_count
    from _k_climb_{{ s }}
    where {{ kanon._counts_is_thin(plan, none, '_k_step_count', '_k_step_dominated') }}
  )
  {%- endif %}
  {%- if s < last or with_rest %}
  {%- if s == 1 %},
  {#- the raw cells of the finest cells still thin after step 1, with all their labels
      (materialized, and a filter of _k_raw_cells, as _k_thin_raw_cells_0) #}
  _k_thin_raw_cells_1 as {{ materialized }} (
    select
      {%- for column in names.raw_keys + names.label_columns %}
      _k_raw_cell.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_raw_cells as _k_raw_cell
    where _k_raw_cell._k_merge < 2 and exists (
      select 1 from _k_thin_1 as _k_thin_cell
      where
      {{ kanon._counts_keys_equal(names.step_keys[0], '_k_thin_cell', '_k_raw_cell') }}
    )
  )
  {%- endif %},
  _k_rest_{{ s + 1 }} as {{ materialized }} (
    {%- if s == 1 %}
    select
      {{ names.event_columns }}
      {%- for column in names.label_columns %},
      _k_thin_raw_cell.{{ column }}
      {%- endfor %}
    from _k_events as _k_event
    inner join _k_thin_raw_cells_1 as _k_thin_raw_cell
      on
      {{ kanon._counts_keys_equal(names.raw_keys, '_k_event', '_k_thin_raw_cell') }}
    {%- else %}
    select _k_event.*
    from _k_rest_{{ s }} as _k_event
    inner join _k_groups_{{ s }} as _k_thin_group
      on
      {{ kanon._counts_keys_equal(keys, '_k_event', '_k_thin_group') }} and
      {{ kanon._counts_is_thin(plan, '_k_thin_group') }}
    {%- endif %}
  )
  {%- endif %}
    {%- endset -%}
    {%- do pieces.append(piece) -%}
  {%- endfor -%}
  {{ pieces | join(',\n') }}
{%- endmacro %}
