{#- Step 1 of the engine: _k_events, every event of a person. A NULL privacy unit is nobody: its
    events are left out here, and counted by the release (null_unit). Each dimension's value as
    text, NULL as a sentinel key, so that every join below is a plain equality. With measures or a
    dominance rule, the source columns too, listed by name. With a delay, only the events old
    enough (_counts_delay_condition). Inlined: scanning the events again is
    cheaper than a copy of them. -#}
{% macro _counts_events_cte(plan) %}
  {%- set q = kanon._quote -%}
  {%- set string, null_key = dbt.type_string(), kanon._null_key() -%}
  _k_events as {{ kanon._cte_materialized(false) }} (
    select
      {%- if plan.measures %}
      {%- for column in plan.source_columns %}
      _k_source.{{ q(column) }},
      {%- endfor %}
      {%- endif %}
      {%- if plan.dominance is not none %}
      cast({{ plan.dominance.value }} as {{ dbt.type_float() }}) as _k_dominance_value,
      {%- endif %}
      {% if plan.count_rows %}cast(null as {{ string }}){% else %}_k_source.{{ q(plan.privacy_unit) }}
      {%- endif %} as _k_person
      {%- for d in plan.dims %},
      coalesce(cast(_k_source.{{ q(d.column) }} as {{ string }}), {{ null_key }}) as _k_d{{ loop.index0 }}_value
      {%- endfor %}
    from {{ plan.relation }} as _k_source
    where {{ kanon._counts_delay_condition(plan, '_k_source') }}
    {%- if not plan.count_rows %}
      and _k_source.{{ q(plan.privacy_unit) }} is not null
    {%- endif %}
  )
{%- endmacro %}
