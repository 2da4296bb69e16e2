{#- Step 4 of the engine: what the release does.

  _k_released  (with_released) the groups of every step that reached k, with their step, labels
               (_k_out<i>_label), levels (_k_out<i>_level), count and measures; every event ends
               in exactly one of these or in the suppressed set
  _k_fates     (with_fates) every finest cell's decision and the row it was released in: its
               own labels (_k_cell<i>_label, NULL for a value that was NULL or missing from the
               hierarchy), count, _k_decision, _k_step and, when released, the released row's
               labels, levels and count -#}
{% macro _counts_outcome_ctes(plan, names, with_released, with_fates) %}
  {%- set dim_range = range(plan.dims | length) -%}
  {%- set pieces = [] -%}
  {%- if with_released -%}
    {%- set piece -%}
  _k_released as (
    {%- for levels in plan.steps %}
    {%- set s = loop.index0 %}
    {% if not loop.first %}union all{% endif %}
    select
      {{ s }} as _k_step
      {%- for i in dim_range %}
      {%- set label, level = kanon._counts_label_level(i, levels[i]) %},
      {{ label }} as _k_out{{ i }}_label,
      {{ level }} as _k_out{{ i }}_level
      {%- endfor %},
      _k_count
      {%- for column in names.carried %},
      {{ column }}
      {%- endfor %}
    from _k_groups_{{ s }}
    where not {{ kanon._counts_is_thin(plan) }}
    {%- endfor %}
  )
    {%- endset -%}
    {%- do pieces.append(piece) -%}
  {%- endif -%}
  {%- if with_fates -%}
    {%- set piece -%}
  _k_fates as (
    {%- for levels in plan.steps %}
    {%- set s = loop.index0 %}
    {% if not loop.first %}union all{% endif %}
    select
      {%- for i in dim_range %}
      {{ kanon._counts_original_label(i) }} as _k_cell{{ i }}_label,
      {%- endfor %}
      _k_count,
      {{ s }} as _k_step,
      '{{ 'PASS' if s == 0 else 'GENERALIZE' }}' as _k_decision
      {%- for i in dim_range %}
      {%- set label, level = kanon._counts_label_level(i, levels[i]) %},
      {{ label }} as _k_out{{ i }}_label,
      {{ level }} as _k_out{{ i }}_level
      {%- endfor %},
      {{ '_k_count' if s == 0 else '_k_step_count' }} as _k_out_count
    from {{ '_k_groups_0' if s == 0 else '_k_climb_' ~ s }}
    where not {{ kanon._counts_is_thin(plan) if s == 0
                 else kanon._counts_is_thin(plan, none, '_k_step_count', '_k_step_dominated') }}
    {%- endfor %}
    {%- for source in ['_k_thin_' ~ names.last] + (['_k_merged_cells'] if plan.null_policy == 'suppress' else []) %}
    union all
    select
      {%- for i in dim_range %}
      {{ kanon._counts_original_label(i) }} as _k_cell{{ i }}_label,
      {%- endfor %}
      _k_count,
      null as _k_step,
      'SUPPRESS' as _k_decision
      {%- for i in dim_range %},
      null as _k_out{{ i }}_label,
      null as _k_out{{ i }}_level
      {%- endfor %},
      null as _k_out_count
    from {{ source }}
    {%- if source == '_k_merged_cells' %}
    {#- suppressed up front (null_policy='suppress'): a NULL in one of its dimensions #}
    where _k_merge = 2
    {%- endif %}
    {%- endfor %}
  )
    {%- endset -%}
    {%- do pieces.append(piece) -%}
  {%- endif -%}
  {{ pieces | join(',\n') }}
{%- endmacro %}
