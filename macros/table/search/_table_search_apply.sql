{#-
  Step 4 of a round of the table search (_table_search): the picks applied in the order of their
  open cells (count, then nodes). A pick waits for the next round when an earlier pick newly
  hides a cell on one of its open cell's lines or one of the cells it would newly hide: that
  earlier pick may protect it, or make another cube cheaper, as hiding one cell at a time would.
  The first pick never waits, so every round protects at least one cell. After
  `_table_conflict_rounds` rounds every pick is applied at once.

  reads   the state's open_picks (step 2 or 3's picks), `numbered`, `anc`<i>
  writes  `hidden_now` (the cells the applied picks newly hide), those cells' _k_status
          'secondary' in `numbered`; the state's rounds
-#}
{% macro _table_search_apply(plan, search) %}
  {%- set t = search.tables -%}
  {%- do kanon._search_replace(t.hidden_now,
      kanon._table_accepted_sql(search.n, t.numbered, t.anc, search.open_picks,
          search.rounds >= kanon._table_conflict_rounds()), true) -%}
  {%- do kanon._scratch_update(t.numbered, {'_k_status': "'secondary'"}, "_k_status = 'published' and (" ~ search.nodes
      ~ ') in (select ' ~ search.nodes ~ ' from ' ~ t.hidden_now ~ ')') -%}
  {%- do search.update({'rounds': search.rounds + 1}) -%}
{% endmacro %}

{#- A select of the cells (_k_d<i>) the applied picks newly hide: with `all_picks`, every pick's;
    else only those of picks that need not wait (step 4 of _table_search): no pick earlier in
    the order (open cell's count, then nodes) newly hides a cell on one of this pick's open
    cell's lines (every node but one the same), or one of this pick's own new cells. -#}
{% macro _table_accepted_sql(n, t, anc, picks, all_picks) -%}
  {%- set targets = kanon._table_target_columns(n, '_k_q') -%}
  with _k_ordered as (
    select
      _k_q.*,
      row_number() over (order by _k_q._k_pn, {{ targets }}) as _k_order
    from {{ picks }} as _k_q
  ),

  {% for i in range(n) -%}
  _k_pairs{{ i }} as (
    select {{ kanon._table_target_columns(n, '_k_o') }}, _k_o._k_a{{ i }} as _k_a
      {{- ', ' }}_k_o._k_b{{ i }} as _k_b from _k_ordered as _k_o
  ),

  {{ kanon._table_support_ctes(n, i, '_k_pairs' ~ i, anc, '_k_c') }}

  {% endfor -%}
  _k_corners as (
    select
      _k_o._k_order,
      {%- for i in range(n) %}
      _k_s{{ i }}._k_s as _k_d{{ i }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from _k_ordered as _k_o
    {%- for i in range(n) %}
    inner join _k_csup{{ i }} as _k_s{{ i }}
      on {{ kanon._table_same_target(n, '_k_s' ~ i, '_k_o') }} and _k_s{{ i }}._k_a = _k_o._k_a{{ i }}
        {{- ' and ' }}_k_s{{ i }}._k_b = _k_o._k_b{{ i }}
    {%- endfor %}
  ),

  _k_new as (
    select _k_c.*
    from _k_corners as _k_c
    inner join {{ t }} as _k_x
      on {% for i in range(n) %}_k_x._k_d{{ i }} = _k_c._k_d{{ i }} and {% endfor %}_k_x._k_status = 'published'
  ),

  _k_waiting as (
    {%- if all_picks %}
    select _k_order from _k_ordered where 1 = 0
    {%- else %}
    {%- for i in range(n) %}
    select _k_o._k_order from _k_ordered as _k_o
    inner join _k_new as _k_x
      on {% for j in range(n) if j != i %}_k_x._k_d{{ j }} = _k_o._k_p{{ j }}
        {{- ' and ' }}{% endfor %}_k_x._k_order < _k_o._k_order
    union
    {%- endfor %}
    select _k_y._k_order from _k_new as _k_y
    inner join _k_new as _k_x
      on {% for i in range(n) %}_k_x._k_d{{ i }} = _k_y._k_d{{ i }} and {% endfor %}_k_x._k_order < _k_y._k_order
    {%- endif %}
  )

  select distinct {% for i in range(n) %}_k_new._k_d{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
  from _k_new
  where not exists (select 1 from _k_waiting where _k_waiting._k_order = _k_new._k_order)
{%- endmacro %}
