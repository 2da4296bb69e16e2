{#- The perturbed count of a row of `alias` with columns `count` and `cell_key`, as
    (join, expression): `join` adds the ptable's row for the count (its last count, imax, for
    larger ones) and the interval holding the cell key; `expression` is the count plus its v. A row the
    table does not cover would get NULL, which the gate refuses. -#}
{% macro _noise_perturbed(noise, alias, count='_k_count', cell_key='_k_cell_key') %}
  {%- set at = alias ~ '.' -%}
  {%- set join -%}
    left join _k_ptable as _k_pt
      on _k_pt._k_i = case when {{ at ~ count }} < {{ noise.imax }} then {{ at ~ count }} else {{ noise.imax }} end
      and {{ at ~ cell_key }} >= _k_pt._k_key_from and {{ at ~ cell_key }} < _k_pt._k_key_to
  {%- endset -%}
  {{ return({'join': join, 'value': at ~ count ~ ' + _k_pt._k_v'}) }}
{% endmacro %}
