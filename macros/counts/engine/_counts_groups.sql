{#- The engine's group arithmetic: how a group is counted, when it is thin, how CTEs are joined. -#}

{#- One group count of the engine: `source` grouped by `keys`, with its people (or rows) as
    _k_count, the measures as _k_measure<j>, and with a dominance rule _k_dominated (1 when the
    group's largest contributors dominate it, see _counts_dominance): per-person sums of the
    dominance value, ranked within the group, in a second aggregate joined on the keys. A noisy
    release counts each group with its cell key, _k_cell_key (_noise_group_count). -#}
{% macro _counts_groups(plan, source, keys) %}
  {%- set dom = plan.dominance -%}
  {%- set key_list = keys | join(', ') -%}
    {%- if dom %}
    select
      _k_totals.*,
      _k_shares._k_dominated
    from (
    {%- endif %}
    {%- if plan.noise is not none %}
    {{ kanon._noise_group_count(keys, source) }}
    {%- else %}
    select
      {{ key_list }},
      {{ kanon._counts_people(plan) }} as _k_count
      {%- for name, expression in plan.measures.items() %},
      {{ expression }} as _k_measure{{ loop.index0 }}
      {%- endfor %}
    from {{ source }}
    group by {{ key_list }}
    {%- endif %}
    {%- if dom %}
    ) as _k_totals
    inner join (
      select
        {{ key_list }},
        case when
          {#- percentages multiplied out, not divided: exact for whole-number contributions #}
          {%- if dom.rule == 'nk' %}
          100 * {{ '_k_top1' if dom.n == 1 else '_k_top2' }} > {{ dom.k }} * _k_total
          {%- else %}
          100 * (_k_total - _k_top2) < {{ dom.p }} * _k_top1
          {%- endif %}
        then 1 else 0 end as _k_dominated
      from (
        select
          {{ key_list }},
          sum(_k_contribution) as _k_total,
          max(_k_contribution) as _k_top1,
          sum(case when _k_rank <= 2 then _k_contribution else 0 end) as _k_top2
        from (
          select
            {{ key_list }},
            _k_contribution,
            row_number() over (partition by {{ key_list }} order by _k_contribution desc) as _k_rank
          from (
            select {{ key_list }}, _k_person, coalesce(sum(_k_dominance_value), 0) as _k_contribution
            from {{ source }}
            group by {{ key_list }}, _k_person
          ) as _k_per_person
        ) as _k_ranked
        group by {{ key_list }}
      ) as _k_top
    ) as _k_shares
      on
      {{ kanon._counts_keys_equal(keys, '_k_totals', '_k_shares') }}
    {%- endif %}
{%- endmacro %}

{#- How a group's people are counted: distinct privacy units, or rows under count_rows. -#}
{% macro _counts_people(plan) -%}
  {{ return('count(*)' if plan.count_rows else 'count(distinct _k_person)') }}
{%- endmacro %}

{#- Whether a group is thin (not releasable): fewer than k people, or dominated under a
    dominance rule. `alias` qualifies the columns; `count` and `dominated` name them. -#}
{% macro _counts_is_thin(plan, alias=none, count='_k_count', dominated='_k_dominated') -%}
  {%- set prefix = (alias ~ '.') if alias else '' -%}
  {%- if plan.dominance is not none -%}
    ({{ prefix ~ count }} < {{ plan.k }} or {{ prefix ~ dominated }} = 1)
  {%- else -%}
    {{ prefix ~ count }} < {{ plan.k }}
  {%- endif -%}
{%- endmacro %}

{#- `left.key = right.key and ...` for every key: how the engine's CTEs are joined. -#}
{% macro _counts_keys_equal(keys, left, right) -%}
  {%- set terms = [] -%}
  {%- for key in keys -%}
    {%- do terms.append(left ~ '.' ~ key ~ ' = ' ~ right ~ '.' ~ key) -%}
  {%- endfor -%}
  {{- terms | join(' and ') -}}
{%- endmacro %}

{#- A finest cell's own label of dimension i for the audit: its level-0 label, or NULL when the
    value was NULL or missing from the hierarchy (released at the root, so never confused with a
    real value spelled like the root). -#}
{% macro _counts_original_label(i) -%}
  case when _k_d{{ i }}_level0 = 0 then _k_d{{ i }}_label0 end
{%- endmacro %}
