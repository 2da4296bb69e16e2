{#-
  The release engine as SQL: the CTEs shared by the released mart and by the audit of a release.

  _k_mapped    every event once, with each dimension's label (and the level that label is at)
               for every level the ladder uses; NULLs and values missing from a hierarchy are
               mapped to the hierarchy's root, never passed through as themselves
  _k_cells_S   step S of the ladder: the events not yet released, grouped at step S's levels and
               recounted in distinct privacy units (counts of people do not add up, so a
               generalized cell is always recounted from the events)
  _k_rest_S    the events of the cells of step S-1 that fell below k; what is left after the
               last step is the suppressed set
  _k_released  the cells of every step that reached k; every event ends in exactly one of these
               or in the suppressed set
-#}
{% macro _release_ctes(plan, with_released=true, with_fates=false, with_remainder=false) %}
  {%- set q = adapter.quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set dims = plan.dims -%}
  {%- set steps = plan.steps -%}
  {%- set people = 'count(*)' if plan.count_rows else 'count(distinct _k_pu)' -%}

  {#- levels each dimension needs, in ascending order -#}
  {%- set needed = [] -%}
  {%- for i in range(dims | length) -%}
    {%- do needed.append(steps | map(attribute=i) | unique | sort | list) -%}
  {%- endfor -%}

  _k_events as (
    select
      _k_src.*,
      {% if plan.count_rows %}cast(null as {{ string }}){% else %}_k_src.{{ q(plan.privacy_unit) }}{% endif %} as _k_pu
      {%- for d in dims %},
      cast(_k_src.{{ q(d.column) }} as {{ string }}) as _k_v{{ loop.index0 }}
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
  _k_mapped as (
    select
      _k_e.*
      {%- for d in dims %}
      {%- set i = loop.index0 %}
      {%- set missing = ('_k_h' ~ i ~ '._k_leaf is null') if d.hierarchy is not none else ('_k_e._k_v' ~ i ~ ' is null') %}
      {%- set root_level = d.depth if d.hierarchy is not none else 1 %}
      {%- for level in needed[i] %},
      case when {{ missing }} then _k_r._k_root{{ i }} else {% if level == 0 %}_k_e._k_v{{ i }}{% else %}_k_h{{ i }}._k_h{{ i }}_{{ level }}{% endif %} end as _k_l{{ i }}_{{ level }},
      case when {{ missing }} then {{ root_level }} else {{ level }} end as _k_lv{{ i }}_{{ level }}
      {%- endfor %}
      {%- endfor %}
    from _k_events as _k_e
    cross join _k_roots as _k_r
    {%- for d in dims if d.hierarchy is not none %}
    {%- set i = dims.index(d) %}
    left join _k_h{{ i }} on _k_e._k_v{{ i }} = _k_h{{ i }}._k_leaf
    {%- endfor %}
  ),
  {%- for levels in steps %}
  {%- set s = loop.index0 %}
  {%- set keys = [] %}
  {%- for i in range(dims | length) %}
    {%- do keys.extend(['_k_l' ~ i ~ '_' ~ levels[i], '_k_lv' ~ i ~ '_' ~ levels[i]]) %}
  {%- endfor %}
  {%- set source = '_k_mapped' if s == 0 else '_k_rest_' ~ s %}
  _k_cells_{{ s }} as (
    select
      {{ keys | join(', ') }},
      {{ people }} as _k_n
      {%- if with_fates and s == 0 %}
      {#- a finest cell's labels at coarser levels follow from its leaf; carried for _k_fates -#}
      {%- for i in range(dims | length) %}{% for level in needed[i] if level > 0 %},
      min(_k_l{{ i }}_{{ level }}) as _k_l{{ i }}_{{ level }}, min(_k_lv{{ i }}_{{ level }}) as _k_lv{{ i }}_{{ level }}
      {%- endfor %}{% endfor %}
      {%- endif %}
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_m{{ loop.index0 }}
      {%- endfor %}
    from {{ source }}
    group by {{ keys | join(', ') }}
  ),
  {%- if not loop.last or with_remainder %}
  _k_rest_{{ s + 1 }} as (
    select _k_src.*
    from {{ source }} as _k_src
    inner join _k_cells_{{ s }} as _k_thin
      on
      {%- for key in keys %}
      _k_src.{{ key }} = _k_thin.{{ key }} and
      {%- endfor %}
      _k_thin._k_n < {{ plan.k }}
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
      {%- for i in range(dims | length) %},
      _k_l{{ i }}_{{ levels[i] }} as _k_label{{ i }},
      _k_lv{{ i }}_{{ levels[i] }} as _k_level{{ i }}
      {%- endfor %},
      _k_n
      {%- for name in plan.measures %},
      _k_m{{ loop.index0 }}
      {%- endfor %}
    from _k_cells_{{ s }}
    where _k_n >= {{ plan.k }}
    {%- endfor %}
  ){% if with_fates %},{% endif %}
  {%- endif %}
  {%- if with_fates %}
  {#- The fate of every finest cell: the step whose group released its events, if any. A thin
      cell's events stay together on the way up, so each cell has exactly one fate. -#}
  _k_fates as (
    select
      {%- for i in range(dims | length) %}
      _k_c0._k_l{{ i }}_0 as _k_orig{{ i }},
      {%- endfor %}
      _k_c0._k_n as _k_n_orig,
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ plan.k }} then {{ loop.index0 }}
        {%- endfor %}
      end as _k_step,
      case
        when _k_c0._k_n >= {{ plan.k }} then 'PASS'
        {%- for levels in steps[1:] %}
        when _k_c{{ loop.index }}._k_n >= {{ plan.k }} then 'GENERALIZE'
        {%- endfor %}
        else 'SUPPRESS'
      end as _k_decision
      {%- for i in range(dims | length) %},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ plan.k }} then _k_c0._k_l{{ i }}_{{ levels[i] }}
        {%- endfor %}
      end as _k_label{{ i }},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ plan.k }} then _k_c0._k_lv{{ i }}_{{ levels[i] }}
        {%- endfor %}
      end as _k_level{{ i }}
      {%- endfor %},
      case
        {%- for levels in steps %}
        when _k_c{{ loop.index0 }}._k_n >= {{ plan.k }} then _k_c{{ loop.index0 }}._k_n
        {%- endfor %}
      end as _k_n_released
    from _k_cells_0 as _k_c0
    {%- for levels in steps[1:] %}
    {%- set s = loop.index %}
    left join _k_cells_{{ s }} as _k_c{{ s }}
      on _k_c{{ s - 1 }}._k_n < {{ plan.k }}
      {%- for i in range(dims | length) %}
      and _k_c0._k_l{{ i }}_{{ levels[i] }} = _k_c{{ s }}._k_l{{ i }}_{{ levels[i] }}
      and _k_c0._k_lv{{ i }}_{{ levels[i] }} = _k_c{{ s }}._k_lv{{ i }}_{{ levels[i] }}
      {%- endfor %}
    {%- endfor %}
  )
  {%- endif %}
{%- endmacro %}
