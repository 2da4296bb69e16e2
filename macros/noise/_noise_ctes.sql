{#- The CTEs a noisy release adds to the engine, after its events:
      _k_record_keys  each person of the events once, with their record key: one keyed hash per
                      person, not per event (materialized: every group count joins it)
      _k_ptable       the perturbation table, typed -#}
{% macro _noise_ctes(noise, people_source) %}
  {%- set bigint = dbt.type_bigint() -%}
  _k_record_keys as {{ kanon._cte_materialized(true) }} (
    select _k_person, {{ kanon._noise_record_key('_k_person', noise.key_env) }} as _k_record_key
    from (select distinct _k_person from {{ people_source }}) as _k_people
  ),
  _k_ptable as (
    select
      cast(i as {{ bigint }}) as _k_i, cast(v as {{ bigint }}) as _k_v,
      cast(key_from as {{ bigint }}) as _k_key_from, cast(key_to as {{ bigint }}) as _k_key_to
    from {{ noise.ptable }}
  )
{%- endmacro %}
