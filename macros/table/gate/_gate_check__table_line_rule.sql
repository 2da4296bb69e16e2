{#- table_line_rule (tables): no line (a total and its parts along one dimension) has exactly
    one hidden cell, which the total minus the others would give away. Recounted from the staged
    cells. -#}
{% macro _gate_check__table_line_rule(gate) %}
  {%- set shared = kanon._table_gate_cells(gate) -%}
  {%- if shared.refusal -%}{{ return(shared.refusal) }}{%- endif -%}
  {#- a noisy table's totals are perturbed, not the sum of their parts: no hidden cell is their
      difference, and this check does not apply (check table_noise says so) -#}
  {%- if shared.noisy -%}{{ return('') }}{%- endif -%}
  {%- set n, staged = shared.n, shared.staged -%}
  {%- set sql -%}
    with {{ staged }}
    select count(*) from (
      {%- for i in range(n) %}
      {%- set others = [] -%}
      {%- for j in range(n) if j != i -%}{%- do others.append('_k_l' ~ j) -%}{%- do others.append('_k_k' ~ j) -%}
      {%- endfor %}
      {% if not loop.first %}union all
      {% endif -%}
      select 1 as _k_line from (
        select {{ others | join(', ') }}, _k_l{{ i }} + 1 as _k_tl, _k_pk{{ i }} as _k_tk
          {{- ', ' }}_k_hidden from _k_staged where _k_pk{{ i }} is not null
        union all
        select {{ others | join(', ') }}, _k_l{{ i }} as _k_tl, _k_k{{ i }} as _k_tk
          {{- ', ' }}_k_hidden from _k_staged where _k_l{{ i }} > 0
      ) as _k_line{{ i }}
      group by {{ others | join(', ') }}, _k_tl, _k_tk
      having sum(_k_hidden) = 1
      {%- endfor %}
    ) as _k_lines
  {%- endset -%}
  {%- set lines = kanon._scratch_query(sql).rows[0][0] | int -%}
  {{ return((lines ~ " line(s) of the table have exactly one hidden cell, which their total gives away")
      if lines > 0 else '') }}
{% endmacro %}
