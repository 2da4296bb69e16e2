{#-
  The pieces the table's gate checks (macros/table/gate/_gate_check__*.sql) share: the plan and
  the staged cells (_table_gate_cells), the staged cells as the search sees them
  (_table_staged_cte), and the plan the search ran with (_table_recorded_plan). k is the model's
  config, which the gate was given, not what the long form says of itself; the dimensions and
  hide_zeros are read from the plan and then checked against the staged rows.
-#}

{#- What the table's checks share: the plan the long form recorded, the protection width the
    model's config promises (release_table records it at parse time; held to as k is, whatever
    the plan says of itself), whether the config says the table is noisy (likewise: the checks
    that rest on additive totals do not apply to one, so what turns them off is the config, not
    the long form; check table_noise holds the long form to it), and the staged cells as the CTE
    _k_staged (_table_staged_cte). Returns {refusal, plan, step, dims, n, lo, staged, k, staging,
    noisy}. -#}
{% macro _table_gate_cells(gate) %}
  {%- set read = kanon._gate_plan(gate, 'table') -%}
  {%- set plan, staging, k = read.plan, gate.staging, gate.k -%}
  {%- if read.refusal -%}{{ return({'refusal': read.refusal}) }}{%- endif -%}
  {%- set promised = (config.get('kanon_table') or {}).get('protection') -%}
  {%- set step = [plan.get('step', 1), 1 if promised is none else ((promised | round(0, 'ceil')) | int)] | max -%}
  {%- set dims = plan.dimensions -%}
  {%- set n = dims | length -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set staged = kanon._table_staged_cte(plan, staging) -%}
  {{ return({'refusal': '', 'plan': plan, 'step': step, 'dims': dims, 'n': n, 'lo': lo, 'staged': staged, 'k': k,
      'staging': staging, 'noisy': (config.get('kanon_table') or {}).get('noisy') is sameas true}) }}
{% endmacro %}

{#- _k_staged: the staged table's published rows in the search's terms (per dimension level,
    key and parent's key; the true count from _kanon_value, status; a noisy table's cell key),
    plus what they show (count, display, additive along each dimension as _k_said<i>) and each
    line's bounds. -#}
{% macro _table_staged_cte(plan, staging, linked_cells=none) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set glued = plan.linked.glued if linked_cells else none -%}
_k_staged_rows as (
  select
    {%- for d in plan.dimensions %}
    {%- set i = loop.index0 %}
    {%- set node = kanon._table_node_sql('cast(' ~ q(d.name ~ '_level') ~ ' as ' ~ dbt.type_int() ~ ')', q(d.name),
        q(d.name ~ '_parent') if d.hierarchy is not none else 'null', d.top, "'2'" if i == glued else none) %}
    {{ node[0] }} as _k_l{{ i }},
    {{ node[1] }} as _k_k{{ i }},
    {{ node[2] }} as _k_pk{{ i }},
    {{ q(d.name ~ '_additive') }} as _k_said{{ i }},
    {%- endfor %}
    _kanon_value as _k_n,
    _kanon_cell_key as _k_cell_key,
    cast({{ q('status') }} as {{ string }}) as _k_status,
    case when cast({{ q('status') }} as {{ string }}) = 'published' then 0 else 1 end as _k_hidden,
    {{ q(plan.count_column) }} as _k_shown,
    cast({{ q('display') }} as {{ string }}) as _k_display
  from {{ staging }}
  where {{ kanon._long_form_is('release') }}
  {%- if linked_cells %}
  {#- with the linked table's cells (side '1' of the glued dimension, _table_linked) -#}
  union all
  select
    {%- for d in plan.dimensions %}
    _k_c._k_l{{ loop.index0 }}, _k_c._k_k{{ loop.index0 }}, _k_c._k_pk{{ loop.index0 }}
      {{- ', ' }}cast(null as {{ dbt.type_boolean() }}) as _k_said{{ loop.index0 }},
    {%- endfor %}
    _k_c._k_n,
    cast(null as {{ dbt.type_bigint() }}) as _k_cell_key,
    _k_c._k_status,
    case when _k_c._k_status = 'published' then 0 else 1 end as _k_hidden,
    cast(null as {{ dbt.type_bigint() }}) as _k_shown,
    cast(null as {{ string }}) as _k_display
  from {{ linked_cells }} as _k_c
  {%- endif %}
),

{{ kanon._table_with_bounds('_k_staged_rows', '_k_staged', plan.dimensions | length) }}
{%- endmacro %}

{#- The plan release_table searched with, rebuilt from the one it recorded (_table_policy) with
    the model's k: what the gate needs to recount a linked table's cells as the search did. -#}
{% macro _table_recorded_plan(plan, k) %}
  {%- set dims = [] -%}
  {%- for d in plan.dimensions -%}
    {%- do dims.append({'name': d.name, 'column': d.column,
        'hierarchy': d.relation if d.hierarchy is not none else none,
        'level_columns': d.level_columns, 'top': d.top}) -%}
  {%- endfor -%}
  {{ return({'relation': plan.relation, 'privacy_unit': plan.privacy_unit, 'count_rows': plan.count_rows, 'dims': dims,
      'k': k, 'hide_zeros': plan.hide_zeros, 'linked': plan.get('linked')}) }}
{% endmacro %}
