{#- A group count with its cell key: `source` grouped by `keys`, each person once (a first
    grouping by keys and person), with _k_count its people and _k_cell_key the sum of their
    record keys modulo 2^32, the same for the same people whatever the release or warehouse.
    The cell key of a group is the Cell Key Method's: two releases that publish the same people
    perturb them alike, so averaging or differencing them learns nothing new. -#}
{% macro _noise_group_count(keys, source) %}
  {%- set key_list = keys | join(', ') -%}
    select
      {%- for key in keys %}
      _k_pair.{{ key }},
      {%- endfor %}
      count(*) as _k_count,
      cast(mod(sum(_k_rk._k_record_key), {{ kanon._noise_key_space() }}) as {{ dbt.type_bigint() }}) as _k_cell_key
    from (
      select {{ key_list }}, _k_person from {{ source }} group by {{ key_list }}, _k_person
    ) as _k_pair
    inner join _k_record_keys as _k_rk on _k_pair._k_person = _k_rk._k_person
    group by {% for key in keys %}_k_pair.{{ key }}{% if not loop.last %}, {% endif %}{% endfor %}
{%- endmacro %}
