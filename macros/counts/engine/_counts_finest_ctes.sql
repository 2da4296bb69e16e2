{#- Step 2 of the engine: the finest cells (step 0's groups), from one grouping of the events.

  _k_hierarchy<i>  dimension i's hierarchy lookup (macros/hierarchy/_hierarchy_recode.sql)
  _k_roots         every dimension's root label, one row
  _k_raw_counts    the bare aggregate: people per combination of raw values
  _k_raw_cells     each raw combination with its label and level at every level the ladder uses,
                   and _k_merge: 0 when it is a finest cell as it is; 1 when it holds a value
                   missing from a hierarchy (or NULL), labelled with the root, so that several raw
                   cells may share one finest cell and must be recounted together; 2 under
                   null_policy='suppress' for a NULL in any dimension (recounted the same way,
                   never released, recorded as SUPPRESS)
  _k_merge_events  the events of the raw cells with _k_merge >= 1 (usually none: when the data
                   holds no such value, the planners skip it)
  _k_merged_cells  those events recounted as their finest cell
  _k_groups_0      the finest cells that can be released: the raw cells with _k_merge = 0 and
                   the recounted ones with _k_merge = 1 -#}
{% macro _counts_finest_ctes(plan, names) %}
  {%- set materialized = kanon._cte_materialized(true) -%}
  {%- set hierarchical = plan.dims | selectattr('hierarchy') | list -%}
  {%- set null_key = kanon._null_key() -%}
  {{ kanon._counts_lookup_ctes(plan, hierarchical, names.needed) }},
  _k_raw_counts as {{ materialized }} (
    {{ kanon._counts_groups(plan, '_k_events', names.raw_keys) }}
  ),
  _k_raw_cells as {{ materialized }} (
    select
      _k_raw.*
      {%- for d in plan.dims %}
      {%- set i = loop.index0 %}
      {%- for level in names.needed[i] %}
      {%- set recoded = kanon._hierarchy_recode(d, level, '_k_raw._k_d' ~ i ~ '_value', '_k_hierarchy' ~ i,
                                                '_k_roots._k_root' ~ i) %}
      {%- set label, level_column = kanon._counts_label_level(i, level) %},
      {{ recoded.label }} as {{ label }},
      {{ recoded.level }} as {{ level_column }}
      {%- endfor %}
      {%- endfor %},
      {%- if plan.null_policy == 'suppress' or hierarchical | length > 0 %}
      case
        {%- if plan.null_policy == 'suppress' %}
        when {% for key in names.raw_keys %}{% if not loop.first %} or {% endif %}_k_raw.{{ key }} = {{ null_key }}
        {%- endfor %} then 2
        {%- endif %}
        {%- for d in hierarchical %}
        when _k_hierarchy{{ plan.dims.index(d) }}._k_leaf is null then 1
        {%- endfor %}
        else 0
      end as _k_merge
      {%- else %}
      0 as _k_merge
      {%- endif %}
    from _k_raw_counts as _k_raw
    {{ kanon._counts_lookup_joins(plan, hierarchical, '_k_raw') }}
  ),
  _k_merge_events as {{ kanon._cte_materialized(false) }} (
    select
      {{ names.event_columns }},
      _k_raw_cell._k_merge,
      {%- for column in names.step_keys[0] %}
      _k_raw_cell.{{ column }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_events as _k_event
    inner join _k_raw_cells as _k_raw_cell
      on
      {{ kanon._counts_keys_equal(names.raw_keys, '_k_event', '_k_raw_cell') }} and
      _k_raw_cell._k_merge >= 1
  ),
  {#- a finest cell's labels at every level follow from its level-0 key #}
  _k_merged_cells as {{ materialized }} (
    select
      {%- for column in names.label_columns %}
      _k_labels.{{ column }},
      {%- endfor %}
      _k_recount._k_merge,
      _k_recount._k_count
      {%- for column in names.carried %},
      _k_recount.{{ column }}
      {%- endfor %}
    from (
      {{ kanon._counts_groups(plan, '_k_merge_events', ['_k_merge'] + names.step_keys[0]) }}
    ) as _k_recount
    inner join (
      select distinct _k_merge, {{ names.label_columns | join(', ') }}
      from _k_raw_cells
      where _k_merge >= 1
    ) as _k_labels
      on
      {{ kanon._counts_keys_equal(['_k_merge'] + names.step_keys[0], '_k_recount', '_k_labels') }}
  ),
  _k_groups_0 as {{ kanon._cte_materialized(false) }} (
    {%- for source, merge in [('_k_raw_cells', 0), ('_k_merged_cells', 1)] %}
    {% if not loop.first %}union all{% endif %}
    select
      {{ names.label_columns | join(', ') }},
      _k_count
      {%- for column in names.carried %},
      {{ column }}
      {%- endfor %}
    from {{ source }}
    where _k_merge = {{ merge }}
    {%- endfor %}
  )
{%- endmacro %}

{#- Each dimension in `looked_up`'s hierarchy lookup at the levels needed[i]
    (_k_hierarchy<i>, macros/hierarchy/_hierarchy_recode.sql), then _k_roots: every dimension's
    root label, one row. Shared by the ladder engine and the dp release. -#}
{% macro _counts_lookup_ctes(plan, looked_up, needed) %}
  {%- for d in looked_up %}
  {{ kanon._hierarchy_lookup_cte(d, '_k_hierarchy' ~ plan.dims.index(d), needed[plan.dims.index(d)]) }},
  {%- endfor %}
  _k_roots as (
    select
      {%- for d in plan.dims %}
      {{ kanon._hierarchy_root(d) }} as _k_root{{ loop.index0 }}{% if not loop.last %},{% endif %}
      {%- endfor %}
  )
{%- endmacro %}

{#- The roots and each dimension in `looked_up`'s lookup row, joined to `alias`'s raw values
    (the lookups of _counts_lookup_ctes; a value missing from its hierarchy gets NULLs). -#}
{% macro _counts_lookup_joins(plan, looked_up, alias) %}
    cross join _k_roots
    {%- for d in looked_up %}
    {%- set i = plan.dims.index(d) %}
    left join _k_hierarchy{{ i }} on {{ alias }}._k_d{{ i }}_value = _k_hierarchy{{ i }}._k_leaf
    {%- endfor %}
{%- endmacro %}
