{#- The CTEs a noisy release adds to the engine, after its events:
      _k_record_keys  each person of the events once, with their record key: one keyed hash per
                      person, not per event (materialized: every group count joins it)
      _k_ptable       the perturbation table, typed -#}
{% macro _noise_ctes(noise, people_source) %}
  _k_record_keys as {{ kanon._cte_materialized(true) }} (
    select _k_person, {{ kanon._noise_record_key('_k_person', noise.key_env) }} as _k_record_key
    from (select distinct _k_person from {{ people_source }}) as _k_people
  ),
  {{ kanon._noise_ptable_cte(noise.ptable) }}
{%- endmacro %}

{#- `_k_ptable as (...)`: the perturbation table `ptable` typed, as _noise_perturbed joins it
    (also the table gate's, which recomputes a noisy table's published values from it). -#}
{% macro _noise_ptable_cte(ptable) %}
  {%- set bigint = dbt.type_bigint() -%}
  _k_ptable as (
    select
      cast(i as {{ bigint }}) as _k_i, cast(v as {{ bigint }}) as _k_v,
      cast(key_from as {{ bigint }}) as _k_key_from, cast(key_to as {{ bigint }}) as _k_key_to
    from {{ ptable }}
  )
{%- endmacro %}
