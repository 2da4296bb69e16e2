{#-
  The release engine as SQL: the CTEs shared by the released mart and by the audit of a release.
  Shaped so that the events are grouped once, as the bare aggregate would group them, and only
  the events of thin cells are read again:

  _k_events     every event once: the privacy unit and each dimension's value as text (NULL as
                a sentinel key, so that every join below is a plain equality)
  _k_raw        the bare aggregate: distinct privacy units per combination of raw values
  _k_raw_cells  each raw combination with its step-0 key (label and level per dimension). A
                value missing from its hierarchy (or NULL) is labelled with the root, never with
                itself; such cells may share a key, so they are `merged` and recounted
  _k_pending    the events step 0 cannot settle from the raw counts: those of thin raw cells and
                of merged ones (the one extra pass over the events)
  _k_cells_0    step 0: the finest cells with their people counts
  _k_rest_S     the events of the cells of step S-1 that fell below k, labelled at every level
                the ladder uses; what is left after the last step is the suppressed set
  _k_cells_S    step S: those events grouped at step S's levels and recounted in distinct
                privacy units (counts of people do not add up)
  _k_released   the cells of every step that reached k; every event ends in exactly one of these
                or in the suppressed set
  _k_fates      (audit) every finest cell's decision and the row it was released in
-#}
{% macro _release_ctes(plan, with_released=true, with_fates=false, with_remainder=false) %}
  {%- set q = adapter.quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set dims = plan.dims -%}
  {%- set steps = plan.steps -%}
  {%- set k = plan.k -%}
  {%- set people = 'count(*)' if plan.count_rows else 'count(distinct _k_pu)' -%}
  {%- set null_key = kanon._null_key() -%}
  {%- set dim_range = range(dims | length) -%}

  {#- levels each dimension needs, in ascending order -#}
  {%- set needed = [] -%}
  {%- for i in dim_range -%}
    {%- do needed.append(steps | map(attribute=i) | unique | sort | list) -%}
  {%- endfor -%}
  {%- set raw_keys = [] -%}
  {%- set keys0 = [] -%}
  {%- for i in dim_range -%}
    {%- do raw_keys.append('_k_v' ~ i) -%}
    {%- do keys0.extend(['_k_l' ~ i ~ '_0', '_k_lv' ~ i ~ '_0']) -%}
  {%- endfor -%}

  _k_events as (
    select
      {%- if plan.measures %}
      _k_src.*,
      {%- endif %}
      {% if plan.count_rows %}cast(null as {{ string }}){% else %}_k_src.{{ q(plan.privacy_unit) }}{% endif %} as _k_pu
      {%- for d in dims %},
      coalesce(cast(_k_src.{{ q(d.column) }} as {{ string }}), {{ null_key }}) as _k_v{{ loop.index0 }}
      {%- endfor %}
    from {{ plan.relation }} as _k_src
    {%- if plan.null_policy == 'suppress' %}
    where
      {%- for d in dims %}
      {% if not loop.first %}and {% endif %}_k_src.{{ q(d.column) }} is not null
      {%- endfor %}
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
  _k_raw as (
    select
      {{ raw_keys | join(', ') }},
      {{ people }} as _k_n
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_events
    group by {{ raw_keys | join(', ') }}
  ),
  _k_raw_cells as (
    select
      _k_c.*
      {%- for d in dims %}
      {%- set i = loop.index0 %}
      {%- set missing = kanon._release_missing(d, i, '_k_c') %},
      case when {{ missing }} then _k_r._k_root{{ i }} else _k_c._k_v{{ i }} end as _k_l{{ i }}_0,
      case when {{ missing }} then {{ d.depth if d.hierarchy is not none else 1 }} else 0 end as _k_lv{{ i }}_0
      {%- endfor %},
      {%- if dims | selectattr('hierarchy') | list | length > 0 %}
      case
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
  _k_pending as (
    select
      _k_e.*,
      _k_c._k_merged,
      {%- for key in keys0 %}
      _k_c.{{ key }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_events as _k_e
    inner join _k_raw_cells as _k_c
      on
      {%- for key in raw_keys %}
      _k_e.{{ key }} = _k_c.{{ key }} and
      {%- endfor %}
      (_k_c._k_n < {{ k }} or _k_c._k_merged = 1)
  ),
  _k_cells_0 as (
    select
      {{ keys0 | join(', ') }},
      _k_n
      {%- for name in plan.measures %},
      _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_raw_cells
    where _k_merged = 0
    union all
    select
      {{ keys0 | join(', ') }},
      {{ people }} as _k_n
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_pending
    where _k_merged = 1
    group by {{ keys0 | join(', ') }}
  ),
  {%- for levels in steps %}
  {%- set s = loop.index0 %}
  {%- set keys = [] %}
  {%- for i in dim_range %}
    {%- do keys.extend(['_k_l' ~ i ~ '_' ~ levels[i], '_k_lv' ~ i ~ '_' ~ levels[i]]) %}
  {%- endfor %}
  {%- if s > 0 %}
  _k_cells_{{ s }} as (
    select
      {{ keys | join(', ') }},
      {{ people }} as _k_n
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_rest_{{ s }}
    group by {{ keys | join(', ') }}
  ),
  {%- endif %}
  {%- if not loop.last or with_remainder %}
  _k_rest_{{ s + 1 }} as (
    {%- if s == 0 %}
    {#- the thin events, labelled once at every coarser level the ladder uses -#}
    select
      _k_src.*
      {{- kanon._release_coarse_labels(dims, needed) }}
    from _k_pending as _k_src
    inner join _k_cells_0 as _k_thin
      on
      {%- for key in keys %}
      _k_src.{{ key }} = _k_thin.{{ key }} and
      {%- endfor %}
      _k_thin._k_n < {{ k }}
    cross join _k_roots as _k_r
    {%- for d in dims if d.hierarchy is not none %}
    {%- set i = dims.index(d) %}
    left join _k_h{{ i }} on _k_src._k_v{{ i }} = _k_h{{ i }}._k_leaf
    {%- endfor %}
    {%- else %}
    select _k_src.*
    from _k_rest_{{ s }} as _k_src
    inner join _k_cells_{{ s }} as _k_thin
      on
      {%- for key in keys %}
      _k_src.{{ key }} = _k_thin.{{ key }} and
      {%- endfor %}
      _k_thin._k_n < {{ k }}
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
      {%- for name in plan.measures %},
      _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_cells_{{ s }}
    where _k_n >= {{ k }}
    {%- endfor %}
  ){% if with_fates %},{% endif %}
  {%- endif %}
  {%- if with_fates %}
  {#- A finest cell's labels at coarser levels follow from its leaf (or its root). -#}
  _k_fine as (
    select
      _k_c0.*
      {{- kanon._release_coarse_labels(dims, needed) }}
    from _k_cells_0 as _k_c0
    cross join _k_roots as _k_r
    {%- for d in dims if d.hierarchy is not none %}
    {%- set i = dims.index(d) %}
    left join _k_h{{ i }}
      on _k_c0._k_l{{ i }}_0 = _k_h{{ i }}._k_leaf and _k_c0._k_lv{{ i }}_0 = 0
    {%- endfor %}
  ),
  {#- A thin cell's events stay together on the way up, so each cell has exactly one fate. -#}
  _k_fates as (
    select
      {%- for i in dim_range %}
      _k_c0._k_l{{ i }}_0 as _k_orig{{ i }},
      {%- endfor %}
      _k_c0._k_n as _k_n_orig,
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ k }} then {{ loop.index0 }}
        {%- endfor %}
      end as _k_step,
      case
        when _k_c0._k_n >= {{ k }} then 'PASS'
        {%- for levels in steps[1:] %}
        when _k_c{{ loop.index }}._k_n >= {{ k }} then 'GENERALIZE'
        {%- endfor %}
        else 'SUPPRESS'
      end as _k_decision
      {%- for i in dim_range %},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ k }} then _k_c0._k_l{{ i }}_{{ levels[i] }}
        {%- endfor %}
      end as _k_label{{ i }},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ k }} then _k_c0._k_lv{{ i }}_{{ levels[i] }}
        {%- endfor %}
      end as _k_level{{ i }}
      {%- endfor %},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ k }} then _k_c{{ loop.index0 }}._k_n
        {%- endfor %}
      end as _k_n_released
    from _k_fine as _k_c0
    {%- for levels in steps[1:] %}
    {%- set s = loop.index %}
    left join _k_cells_{{ s }} as _k_c{{ s }}
      on _k_c{{ s - 1 }}._k_n < {{ k }}
      {%- for i in dim_range %}
      and _k_c0._k_l{{ i }}_{{ levels[i] }} = _k_c{{ s }}._k_l{{ i }}_{{ levels[i] }}
      and _k_c0._k_lv{{ i }}_{{ levels[i] }} = _k_c{{ s }}._k_lv{{ i }}_{{ levels[i] }}
      {%- endfor %}
    {%- endfor %}
  )
  {%- endif %}
{%- endmacro %}

{#- Whether dimension i's value in `alias` is NULL or missing from its hierarchy. -#}
{% macro _release_missing(d, i, alias) %}
  {%- if d.hierarchy is not none -%}
    _k_h{{ i }}._k_leaf is null
  {%- else -%}
    {{ alias }}._k_v{{ i }} = {{ kanon._null_key() }}
  {%- endif -%}
{% endmacro %}

{#- The key standing for NULL in joins: a string no real label holds (it starts with a control character). -#}
{% macro _null_key() %}
  {{- return(adapter.dispatch('_null_key', 'kanon')()) -}}
{% endmacro %}

{% macro default___null_key() -%}
  {{ return("chr(31) || 'kanon:null'") }}
{%- endmacro %}

{#- Each hierarchical dimension's label (and its level) at every coarser level the ladder uses,
    from the hierarchy joined as _k_h<i>: a value missing from it (or NULL) is the root. -#}
{% macro _release_coarse_labels(dims, needed) %}
  {%- for d in dims if d.hierarchy is not none %}
  {%- set i = dims.index(d) %}
  {%- for level in needed[i] if level > 0 %},
      case when _k_h{{ i }}._k_leaf is null then _k_r._k_root{{ i }} else _k_h{{ i }}._k_h{{ i }}_{{ level }} end as _k_l{{ i }}_{{ level }},
      case when _k_h{{ i }}._k_leaf is null then {{ d.depth }} else {{ level }} end as _k_lv{{ i }}_{{ level }}
  {%- endfor %}
  {%- endfor %}
{%- endmacro %}
