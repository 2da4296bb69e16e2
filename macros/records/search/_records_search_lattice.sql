{#-
  The lattice of the record search (_records_search), one row per node.

  reads   the packed class table (`classes`: the loss's lower bound, _records_lower_bound)
  writes  the scratch table `lattice`: a node's level per quasi-identifier (_k_l<i>), its height
          (_k_height), number (_k_node), lower bound on its loss (_k_lb), mask per packed word
          (_k_m<j>), state (_k_state: NULL unknown, 'pass', 'fail') and whether it was evaluated
          (_k_evaluated)
-#}
{% macro _records_search_lattice(plan, search) %}
  {%- set lower_bound = kanon._records_lower_bound(plan, search) -%}
  {%- set lattice_sql -%}
    select
      {%- for qi in plan.qis %}
      _k_t{{ qi.index }}._k_l{{ qi.index }},
      {%- endfor %}
      {{ kanon._records_levels(plan) | join(' + ') }} as _k_height,
      {%- set ns = namespace(radix=1, terms=[]) %}
      {%- for qi in plan.qis | reverse %}
      {%- do ns.terms.append(('_k_l' ~ qi.index) ~ ' * ' ~ ns.radix) %}
      {%- set ns.radix = ns.radix * (qi.depth + 1) %}
      {%- endfor %}
      {{ ns.terms | join(' + ') }} as _k_node,
      {{ lower_bound }} as _k_lb,
      {%- for mask in kanon._records_word_masks(plan, search.words) %}
      {{ mask }},
      {%- endfor %}
      cast(null as {{ dbt.type_string() }}) as _k_state,
      0 as _k_evaluated
    from
      {%- for qi in plan.qis %}
      (values {% for level in range(qi.depth + 1) %}({{ level }}){% if not loop.last %}, {% endif %}
      {%- endfor %}) as _k_t{{ qi.index }} (_k_l{{ qi.index }}){% if not loop.last %} cross join{% endif %}
      {%- endfor %}
  {%- endset -%}
  {%- do kanon._scratch_create(search.tables.lattice, lattice_sql) -%}
  {%- do kanon._scratch_analyze(search.tables.lattice) -%}
{% endmacro %}

{#- The lattice's `_k_lb`: a lower bound on a node's loss, known without evaluating it. Non-uniform
    entropy: the loss with nothing suppressed beyond the records suppressed up front (whose loss
    is the top's whatever the node), from one pass over the class table; a suppressed record
    costs its loss at the top, which no node's loss of it exceeds. Height: the height.
    Discernibility: none (0). -#}
{% macro _records_lower_bound(plan, search) %}
  {%- set double = kanon._records_double() -%}
  {%- if plan.loss == 'height' -%}
    {{ return('cast(' ~ (kanon._records_levels(plan) | join(' + ')) ~ ' as ' ~ double ~ ')') }}
  {%- elif plan.loss == 'discernibility' -%}
    {{ return('cast(0 as ' ~ double ~ ')') }}
  {%- endif -%}
  {%- set sums = ['coalesce(sum(case when _k_missing = 1 then _k_n * _k_nue_top else 0 end), 0)'] -%}
  {%- for qi in plan.qis -%}
    {%- for level in range(1, qi.depth + 1) -%}
      {%- do sums.append('coalesce(sum(case when _k_missing = 0 then _k_n * _k_q' ~ qi.index ~ '_nue' ~ level
          ~ ' else 0 end), 0)') -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set row = run_query('select ' ~ (sums | join(', ')) ~ ' from ' ~ search.tables.classes).rows[0] -%}
  {%- set ns = namespace(at=1) -%}
  {%- set terms = [(row[0] | float) ~ ''] -%}
  {%- for qi in plan.qis -%}
    {%- set cases = [] -%}
    {%- for level in range(1, qi.depth + 1) -%}
      {%- do cases.append('when ' ~ level ~ ' then ' ~ (row[ns.at] | float)) -%}
      {%- set ns.at = ns.at + 1 -%}
    {%- endfor -%}
    {%- do terms.append('case _k_l' ~ qi.index ~ ' ' ~ (cases | join(' ')) ~ ' else 0 end') -%}
  {%- endfor -%}
  {{ return('cast(' ~ (terms | join(' + ')) ~ ' as ' ~ double ~ ')') }}
{% endmacro %}

{#- A node's mask for each packed word (from its levels, _k_l<i>): [`<expr> as _k_m<j>`, ...]. The
    lattice stores them, computed once per node: in the evaluation's SQL, Postgres would compute
    them again for every class and node (it flattens the subquery into the join). -#}
{% macro _records_word_masks(plan, words) %}
  {%- set masks = [] -%}
  {%- for word in words -%}
    {%- set by_qi = {} -%}
    {%- for field in word -%}
      {%- do by_qi.setdefault(field.qi, []).append('when ' ~ field.level ~ ' then '
          ~ (((2 ** field.bits) - 1) * (2 ** field.offset))) -%}
    {%- endfor -%}
    {%- set terms = [] -%}
    {%- for qi, whens in by_qi.items() -%}
      {%- do terms.append('cast(case _k_l' ~ qi ~ ' ' ~ (whens | join(' ')) ~ ' else 0 end as ' ~ dbt.type_bigint()
          ~ ')') -%}
    {%- endfor -%}
    {%- do masks.append((terms | join(' + ')) ~ ' as _k_m' ~ loop.index0) -%}
  {%- endfor -%}
  {{ return(masks) }}
{% endmacro %}
