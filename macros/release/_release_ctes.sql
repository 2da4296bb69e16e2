{#-
  The release engine as SQL: the CTEs shared by the released mart and by the audit of a release.
  Shaped so that the events are grouped once, as the bare aggregate groups them, every label is
  looked up once per raw cell (not per event), and the events are read once more for the thin
  cells only, streamed straight into the first recount:

  _k_events     every event of a person (a NULL privacy unit is nobody: left out, counted by
                the release): the privacy unit and each dimension's value as text (NULL as a
                sentinel key, so that every join below is a plain equality); with measures or a
                dominance rule, the source columns too, listed by name. Inlined: scanning the
                events again is cheaper than a copy of them
  _k_raw        the bare aggregate: distinct privacy units per combination of raw values
  _k_raw_cells  each raw combination with its label and level at every level the ladder uses. A
                value missing from its hierarchy (or NULL) is labelled with the root, never with
                itself; such cells may share a finest cell, so they are `merged` and recounted
                (_k_merged_cells). When the data holds such values, their events are read once
                more for that (_k_merged_events); when it holds none, the planners skip it.
                Under null_policy='suppress' a cell with a NULL is marked 2: recounted the same
                way, never released, and recorded as SUPPRESS
  _k_cells_0    step 0: the finest cells with their people counts and their labels at every level
  _k_rest_S     the events of the cells of step S-1 that fell below k: step 1 joins the events to
                the thin finest cells, step 2 to those still thin after step 1 (few, after a good
                first step), later steps follow their events; after the last step, the suppressed
  _k_cells_S    step S: those events grouped at step S's levels and recounted in distinct
                privacy units (counts of people do not add up)
  _k_thin_S     the finest cells still thin after step S (_k_fate_S: with their step-S cell's
                count); a thin cell's events stay together, so each finest cell has one fate
  _k_released   the cells of every step that reached k; every event ends in exactly one of these
                or in the suppressed set
  _k_fates      (audit) every finest cell's decision and the row it was released in. With
                fate_json, a GENERALIZE fate carries its released row's labels and levels as
                JSON, built once per released row

  Every group count goes through _release_count_groups (distinct people, the measures, and with a
  dominance rule whether a few people dominate the group), and every "is this group thin" through
  _release_is_thin: a group is thin below k people or when dominated.

  Whether a CTE is materialized is said explicitly (engines guess differently): what is read
  several times and costly to recompute is materialized; cheap filters and joins are inlined.
-#}
{% macro _release_ctes(plan, with_released=true, with_fates=false, with_remainder=false, fate_json=false) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set dims = plan.dims -%}
  {%- set steps = plan.steps -%}
  {%- set k = plan.k -%}
  {%- set dom = plan.dominance is not none -%}
  {%- set null_key = kanon._null_key() -%}
  {%- set dim_range = range(dims | length) -%}
  {%- set materialized = kanon._cte_materialized(true) -%}

  {#- levels each dimension needs, in ascending order, and the (label, level) columns of each -#}
  {%- set needed = [] -%}
  {%- for i in dim_range -%}
    {%- do needed.append(steps | map(attribute=i) | unique | sort | list) -%}
  {%- endfor -%}
  {%- set raw_keys = [] -%}
  {%- set label_columns = [] -%}
  {%- for i in dim_range -%}
    {%- do raw_keys.append('_k_v' ~ i) -%}
    {%- for level in needed[i] -%}
      {%- do label_columns.extend(['_k_l' ~ i ~ '_' ~ level, '_k_lv' ~ i ~ '_' ~ level]) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set step_keys = [] -%}
  {%- for levels in steps -%}
    {%- set keys = [] -%}
    {%- for i in dim_range -%}
      {%- do keys.extend(['_k_l' ~ i ~ '_' ~ levels[i], '_k_lv' ~ i ~ '_' ~ levels[i]]) -%}
    {%- endfor -%}
    {%- do step_keys.append(keys) -%}
  {%- endfor -%}
  {%- set last = steps | length - 1 -%}
  {%- set rest_1_columns = step_keys[1] if steps | length > 1 else [] -%}
  {#- the finest cells still thin are followed up to this step: all of them for the audit, else
      as far as _k_rest_2 needs (-1: not at all) -#}
  {%- set thin_through = last if with_fates else (1 if last >= 2 or (last == 1 and with_remainder) else -1) -%}
  {#- what the events carry up the ladder: the privacy unit, and every column when measures need them -#}
  {%- set event_columns = '_k_e.*' if (plan.measures or dom) else '_k_e._k_pu' -%}
  {#- what a group carries besides its keys and _k_n -#}
  {%- set measure_columns = [] -%}
  {%- for name in plan.measures -%}{%- do measure_columns.append('_k_m' ~ loop.index0) -%}{%- endfor -%}
  {%- if dom -%}{%- do measure_columns.append('_k_dom') -%}{%- endif -%}

  _k_events as {{ kanon._cte_materialized(false) }} (
    select
      {%- if plan.measures %}
      {%- for column in plan.source_columns %}
      _k_src.{{ q(column) }},
      {%- endfor %}
      {%- endif %}
      {%- if dom %}
      cast({{ plan.dominance.value }} as {{ dbt.type_float() }}) as _k_dv,
      {%- endif %}
      {% if plan.count_rows %}cast(null as {{ string }}){% else %}_k_src.{{ q(plan.privacy_unit) }}{% endif %} as _k_pu
      {%- for d in dims %},
      coalesce(cast(_k_src.{{ q(d.column) }} as {{ string }}), {{ null_key }}) as _k_v{{ loop.index0 }}
      {%- endfor %}
    from {{ plan.relation }} as _k_src
    {%- if not plan.count_rows %}
    where _k_src.{{ q(plan.privacy_unit) }} is not null
    {%- endif %}
  ),
  {%- for d in dims if d.hierarchy is not none %}
  {%- set i = dims.index(d) %}
  _k_h{{ i }} as (
    select
      cast({{ q(d.level_columns[0]) }} as {{ string }}) as _k_leaf
      {%- for level in needed[i] if level > 0 %},
      cast({{ q(d.level_columns[level]) }} as {{ string }}) as _k_h{{ i }}_{{ level }}
      {%- endfor %}
    from {{ d.hierarchy }}
  ),
  {%- endfor %}
  _k_roots as (
    select
      {%- for d in dims %}
      {% if not loop.first %}, {% endif -%}
      {%- if d.hierarchy is not none -%}
      (select max(cast({{ q(d.level_columns[-1]) }} as {{ string }})) from {{ d.hierarchy }})
      {%- else -%}
      cast('*' as {{ string }})
      {%- endif %} as _k_root{{ loop.index0 }}
      {%- endfor %}
  ),
  _k_raw as {{ materialized }} (
    {{ kanon._release_count_groups(plan, '_k_events', raw_keys) }}
  ),
  _k_raw_cells as {{ materialized }} (
    select
      _k_c.*
      {%- for d in dims %}
      {%- set i = loop.index0 %}
      {%- set missing = kanon._release_missing(d, i, '_k_c') %}
      {%- for level in needed[i] %},
      case when {{ missing }} then _k_r._k_root{{ i }} else {{ '_k_c._k_v' ~ i if level == 0 else '_k_h' ~ i ~ '._k_h' ~ i ~ '_' ~ level }} end as _k_l{{ i }}_{{ level }},
      case when {{ missing }} then {{ d.depth if d.hierarchy is not none else 1 }} else {{ level }} end as _k_lv{{ i }}_{{ level }}
      {%- endfor %}
      {%- endfor %},
      {%- if plan.null_policy == 'suppress' or dims | selectattr('hierarchy') | list | length > 0 %}
      case
        {%- if plan.null_policy == 'suppress' %}
        when {% for i in dim_range %}{% if not loop.first %} or {% endif %}_k_c._k_v{{ i }} = {{ null_key }}{% endfor %} then 2
        {%- endif %}
        {%- for d in dims if d.hierarchy is not none %}
        when _k_h{{ dims.index(d) }}._k_leaf is null then 1
        {%- endfor %}
        else 0
      end as _k_merged
      {%- else %}
      0 as _k_merged
      {%- endif %}
    from _k_raw as _k_c
    cross join _k_roots as _k_r
    {%- for d in dims if d.hierarchy is not none %}
    {%- set i = dims.index(d) %}
    left join _k_h{{ i }} on _k_c._k_v{{ i }} = _k_h{{ i }}._k_leaf
    {%- endfor %}
  ),
  {#- Events of raw cells holding a value missing from a hierarchy (or NULL): usually none. -#}
  _k_merged_events as {{ kanon._cte_materialized(false) }} (
    select
      {{ event_columns }},
      _k_c._k_merged,
      {%- for column in step_keys[0] %}
      _k_c.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_events as _k_e
    inner join _k_raw_cells as _k_c
      on
      {{ kanon._release_keys_equal(raw_keys, '_k_e', '_k_c') }} and
      _k_c._k_merged >= 1
  ),
  {#- ... recounted as their finest cell (whose labels at every level follow from its level-0 key). -#}
  _k_merged_cells as {{ materialized }} (
    select
      {%- for column in label_columns %}
      _k_l.{{ column }},
      {%- endfor %}
      _k_g._k_merged,
      _k_g._k_n
      {%- for column in measure_columns %},
      _k_g.{{ column }}
      {%- endfor %}
    from (
      {{ kanon._release_count_groups(plan, '_k_merged_events', ['_k_merged'] + step_keys[0]) }}
    ) as _k_g
    inner join (
      select distinct _k_merged, {{ label_columns | join(', ') }}
      from _k_raw_cells
      where _k_merged >= 1
    ) as _k_l
      on
      {{ kanon._release_keys_equal(['_k_merged'] + step_keys[0], '_k_g', '_k_l') }}
  ),
  {#- the raw cells that are finest cells as they are, and the recounted merged ones -#}
  _k_cells_0 as {{ kanon._cte_materialized(false) }} (
    {%- for source, merged in [('_k_raw_cells', 0), ('_k_merged_cells', 1)] %}
    {% if not loop.first %}union all{% endif %}
    select
      {{ label_columns | join(', ') }},
      _k_n
      {%- for column in measure_columns %},
      {{ column }}
      {%- endfor %}
    from {{ source }}
    where _k_merged = {{ merged }}
    {%- endfor %}
  ),
  {%- if last > 0 or with_remainder %}
  {#- The raw cells of the thin finest cells, with their step-1 key (a thin raw cell that was not
      merged is a thin finest cell). Materialized: the events are joined to it once, and written
      as a filter of _k_raw_cells, so that planners size it by _k_raw_cells and hash it, not the
      events. -#}
  _k_thin_raw_0 as {{ materialized }} (
    select
      {%- for column in raw_keys + rest_1_columns %}
      _k_r.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_raw_cells as _k_r
    where
      ({{ kanon._release_is_thin(plan, '_k_r') }} and _k_r._k_merged = 0)
      or (_k_r._k_merged = 1 and exists (
        select 1 from _k_merged_cells as _k_m
        where
        {{ kanon._release_keys_equal(['_k_merged'] + step_keys[0], '_k_m', '_k_r') }} and
          {{ kanon._release_is_thin(plan, '_k_m') }}
      ))
  ),
  {#- Their events: the one extra pass over the events, streamed into step 1's recount. -#}
  _k_rest_1 as {{ kanon._cte_materialized(false) }} (
    select
      {{ event_columns }}
      {%- for column in rest_1_columns %},
      _k_c.{{ column }}
      {%- endfor %}
    from _k_events as _k_e
    inner join _k_thin_raw_0 as _k_c
      on
      {{ kanon._release_keys_equal(raw_keys, '_k_e', '_k_c') }}
  ),
  {%- endif %}
  {#- _k_thin_S: the finest cells still thin after step S, materialized (few after a good step);
      _k_fate_S: the finest cells thin before step S with the count of their step-S cell. -#}
  {%- if thin_through >= 0 %}
  _k_thin_0 as {{ kanon._cte_materialized(false) }} (
    select {{ label_columns | join(', ') }}, _k_n
    from _k_cells_0
    where {{ kanon._release_is_thin(plan) }}
  ),
  {%- endif %}
  {%- for levels in steps[1:] %}
  {%- set s = loop.index %}
  {%- set keys = step_keys[s] %}
  _k_cells_{{ s }} as {{ materialized }} (
    {%- if fate_json %}
    select
      _k_g.*,
      case when not {{ kanon._release_is_thin(plan, '_k_g') }} then {{ kanon._json_object(kanon._release_label_pairs(plan, '_k_l', true, levels)) }} end as _k_json_labels,
      case when not {{ kanon._release_is_thin(plan, '_k_g') }} then {{ kanon._json_object(kanon._release_label_pairs(plan, '_k_lv', false, levels)) }} end as _k_json_levels
    from (
    {%- endif %}
    {{ kanon._release_count_groups(plan, '_k_rest_' ~ s, keys) }}
    {%- if fate_json %}
    ) as _k_g
    {%- endif %}
  ),
  {%- if s <= thin_through %}
  _k_fate_{{ s }} as {{ kanon._cte_materialized(false) }} (
    select
      {%- for column in label_columns %}
      _k_f.{{ column }},
      {%- endfor %}
      _k_f._k_n,
      _k_c._k_n as _k_n_at
      {%- if dom %},
      _k_c._k_dom as _k_dom_at
      {%- endif %}
      {%- if fate_json %},
      _k_c._k_json_labels,
      _k_c._k_json_levels
      {%- endif %}
    from _k_thin_{{ s - 1 }} as _k_f
    inner join _k_cells_{{ s }} as _k_c
      on
      {{ kanon._release_keys_equal(keys, '_k_f', '_k_c') }}
  ),
  _k_thin_{{ s }} as {{ materialized }} (
    select {{ label_columns | join(', ') }}, _k_n
    from _k_fate_{{ s }}
    where {{ kanon._release_is_thin(plan, none, '_k_n_at', '_k_dom_at') }}
  ),
  {%- endif %}
  {%- if s < last or with_remainder %}
  {%- if s == 1 %}
  {#- The raw cells of the finest cells still thin after step 1, with all their labels
      (materialized, and a filter of _k_raw_cells, as _k_thin_raw_0). -#}
  _k_thin_raw_1 as {{ materialized }} (
    select
      {%- for column in raw_keys + label_columns %}
      _k_r.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_raw_cells as _k_r
    where _k_r._k_merged < 2 and exists (
      select 1 from _k_thin_1 as _k_t
      where
      {{ kanon._release_keys_equal(step_keys[0], '_k_t', '_k_r') }}
    )
  ),
  {%- endif %}
  {#- The events still thin after step S: from step 2 on they carry all their labels; step 2
      fetches them, through their raw cells, for the (few) finest cells still thin. -#}
  _k_rest_{{ s + 1 }} as {{ materialized }} (
    {%- if s == 1 %}
    select
      {{ event_columns }}
      {%- for column in label_columns %},
      _k_c.{{ column }}
      {%- endfor %}
    from _k_events as _k_e
    inner join _k_thin_raw_1 as _k_c
      on
      {{ kanon._release_keys_equal(raw_keys, '_k_e', '_k_c') }}
    {%- else %}
    select _k_src.*
    from _k_rest_{{ s }} as _k_src
    inner join _k_cells_{{ s }} as _k_thin
      on
      {{ kanon._release_keys_equal(keys, '_k_src', '_k_thin') }} and
      {{ kanon._release_is_thin(plan, '_k_thin') }}
    {%- endif %}
  ),
  {%- endif %}
  {%- endfor %}
  {%- if with_released %}
  _k_released as (
    {%- for levels in steps %}
    {%- set s = loop.index0 %}
    {% if not loop.first %}union all{% endif %}
    select
      {{ s }} as _k_step
      {%- for i in dim_range %},
      _k_l{{ i }}_{{ levels[i] }} as _k_label{{ i }},
      _k_lv{{ i }}_{{ levels[i] }} as _k_level{{ i }}
      {%- endfor %},
      _k_n
      {%- for column in measure_columns %},
      {{ column }}
      {%- endfor %}
    from _k_cells_{{ s }}
    where not {{ kanon._release_is_thin(plan) }}
    {%- endfor %}
  ){% if with_fates %},{% endif %}
  {%- endif %}
  {%- if with_fates %}
  _k_fates as (
    {%- for levels in steps %}
    {%- set s = loop.index0 %}
    {% if not loop.first %}union all{% endif %}
    select
      {%- for i in dim_range %}
      {{ kanon._release_original_label(i) }} as _k_orig{{ i }},
      {%- endfor %}
      _k_n as _k_n_orig,
      {{ s }} as _k_step,
      '{{ 'PASS' if s == 0 else 'GENERALIZE' }}' as _k_decision
      {%- for i in dim_range %},
      _k_l{{ i }}_{{ levels[i] }} as _k_label{{ i }},
      _k_lv{{ i }}_{{ levels[i] }} as _k_level{{ i }}
      {%- endfor %},
      {{ '_k_n' if s == 0 else '_k_n_at' }} as _k_n_released
      {%- if fate_json %},
      {{ 'null' if s == 0 else '_k_json_labels' }} as _k_released_json,
      {{ 'null' if s == 0 else '_k_json_levels' }} as _k_released_levels_json
      {%- endif %}
    from {{ '_k_cells_0' if s == 0 else '_k_fate_' ~ s }}
    where not {{ kanon._release_is_thin(plan) if s == 0 else kanon._release_is_thin(plan, none, '_k_n_at', '_k_dom_at') }}
    {%- endfor %}
    {%- for source in ['_k_thin_' ~ last] + (['_k_merged_cells'] if plan.null_policy == 'suppress' else []) %}
    union all
    select
      {%- for i in dim_range %}
      {{ kanon._release_original_label(i) }} as _k_orig{{ i }},
      {%- endfor %}
      _k_n as _k_n_orig,
      null as _k_step,
      'SUPPRESS' as _k_decision
      {%- for i in dim_range %},
      null as _k_label{{ i }},
      null as _k_level{{ i }}
      {%- endfor %},
      null as _k_n_released
      {%- if fate_json %},
      null as _k_released_json,
      null as _k_released_levels_json
      {%- endif %}
    from {{ source }}
    {%- if source == '_k_merged_cells' %}
    {#- suppressed up front (null_policy='suppress'): a NULL in one of its dimensions #}
    where _k_merged = 2
    {%- endif %}
    {%- endfor %}
  )
  {%- endif %}
{%- endmacro %}

{#- `left.key = right.key and ...` for every key: how the engine's CTEs are joined. -#}
{% macro _release_keys_equal(keys, left, right) -%}
  {%- set terms = [] -%}
  {%- for key in keys -%}
    {%- do terms.append(left ~ '.' ~ key ~ ' = ' ~ right ~ '.' ~ key) -%}
  {%- endfor -%}
  {{- terms | join(' and ') -}}
{%- endmacro %}

{#- Whether dimension i's value in `alias` is NULL or missing from its hierarchy (joined as _k_h<i>). -#}
{% macro _release_missing(d, i, alias) %}
  {%- if d.hierarchy is not none -%}
    _k_h{{ i }}._k_leaf is null
  {%- else -%}
    {{ alias }}._k_v{{ i }} = {{ kanon._null_key() }}
  {%- endif -%}
{% endmacro %}

{#- One group count of the engine: `source` grouped by `keys`, with its people (or rows) as _k_n,
    the measures as _k_m<i>, and with a dominance rule _k_dom (1 when the group's largest
    contributors dominate it, see _release_dominance): per-person sums of the dominance value,
    ranked within the group, in a second aggregate joined on the keys. -#}
{% macro _release_count_groups(plan, source, keys) %}
  {%- set people = kanon._release_people(plan) -%}
  {%- set dom = plan.dominance -%}
    select
      {%- if dom %}
      _k_a.*,
      _k_d._k_dom
    from (
    select
    {%- endif %}
      {{ keys | join(', ') }},
      {{ people }} as _k_n
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_m{{ loop.index0 }}
      {%- endfor %}
    from {{ source }}
    group by {{ keys | join(', ') }}
    {%- if dom %}
    ) as _k_a
    inner join (
      select
        {{ keys | join(', ') }},
        case when
          {#- percentages multiplied out, not divided: exact for whole-number contributions #}
          {%- if dom.rule == 'nk' %}
          100 * {{ '_k_top1' if dom.n == 1 else '_k_top2' }} > {{ dom.k }} * _k_total
          {%- else %}
          100 * (_k_total - _k_top2) < {{ dom.p }} * _k_top1
          {%- endif %}
        then 1 else 0 end as _k_dom
      from (
        select
          {{ keys | join(', ') }},
          sum(_k_x) as _k_total,
          max(_k_x) as _k_top1,
          sum(case when _k_rank <= 2 then _k_x else 0 end) as _k_top2
        from (
          select
            {{ keys | join(', ') }},
            _k_x,
            row_number() over (partition by {{ keys | join(', ') }} order by _k_x desc) as _k_rank
          from (
            select {{ keys | join(', ') }}, _k_pu, coalesce(sum(_k_dv), 0) as _k_x
            from {{ source }}
            group by {{ keys | join(', ') }}, _k_pu
          ) as _k_person
        ) as _k_ranked
        group by {{ keys | join(', ') }}
      ) as _k_shares
    ) as _k_d
      on
      {{ kanon._release_keys_equal(keys, '_k_a', '_k_d') }}
    {%- endif %}
{%- endmacro %}

{#- How a group's people are counted: distinct privacy units, or rows under count_rows. -#}
{% macro _release_people(plan) -%}
  {{ return('count(*)' if plan.count_rows else 'count(distinct _k_pu)') }}
{%- endmacro %}

{#- Whether a group is thin (not releasable): fewer than k people, or dominated under a
    dominance rule. `alias` qualifies the columns; `n` and `dom` name them. -#}
{% macro _release_is_thin(plan, alias=none, n='_k_n', dom='_k_dom') -%}
  {%- set prefix = (alias ~ '.') if alias else '' -%}
  {%- if plan.dominance is not none -%}
    ({{ prefix ~ n }} < {{ plan.k }} or {{ prefix ~ dom }} = 1)
  {%- else -%}
    {{ prefix ~ n }} < {{ plan.k }}
  {%- endif -%}
{%- endmacro %}

{#- A finest cell's own label of dimension i for the audit: its level-0 label, or NULL when the
    value was NULL or missing from the hierarchy (released at the root, so never confused with a
    real value spelled like the root). -#}
{% macro _release_original_label(i) -%}
  case when _k_lv{{ i }}_0 = 0 then _k_l{{ i }}_0 end
{%- endmacro %}
