{#-
  Phase 1 of the record search (_records_search), by entropy and height only: descend greedily
  from the most general node, evaluating a node's direct predecessors and stepping to the one of
  least loss that satisfies the model, until none does. Its loss bounds the optimum from above,
  which the next phases prune with (_records_within_best).

  reads   the lattice (`lattice`), the nodes evaluated (`evals`)
  writes  a batch into `evals` per step (_records_search_batch), and what each tells of the
          lattice's other nodes (_records_propagate)
-#}
{% macro _records_search_descend(plan, search) %}
  {%- set ns = namespace(done=plan.loss == 'discernibility', levels=[]) -%}
  {%- for qi in plan.qis -%}{%- do ns.levels.append(qi.depth) -%}{%- endfor -%}
  {%- for step in range(plan.max_height + 1) if not ns.done -%}
    {%- set steps = [ns.levels] if step == 0 else kanon._records_predecessors(plan, ns.levels) -%}
    {%- set among = [] -%}
    {%- for levels in steps -%}{%- do among.append(kanon._records_node_condition(plan, levels)) -%}{%- endfor -%}
    {%- set among = '(' ~ (among | join(' or ')) ~ ')' if among else '1 = 0' -%}
    {%- set batch = kanon._records_search_batch(plan, search, '_k_evaluated = 0 and '
        ~ among, at_most=steps | length) -%}
    {%- do kanon._records_propagate(plan, search, batch) -%}
    {%- set next = kanon._records_node_row(search, 'select * from ' ~ search.tables.evals ~ ' where _k_passes = 1 and '
        ~ among ~ ' order by ' ~ kanon._records_search_order(plan) ~ ' limit 1') -%}
    {%- if next is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set ns.levels = kanon._records_node_levels(plan, next) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- The levels of a node's direct predecessors (one column one level finer), as lists. -#}
{% macro _records_predecessors(plan, levels) %}
  {%- set out = [] -%}
  {%- for qi in plan.qis if levels[qi.index] > 0 -%}
    {%- set down = levels | list -%}
    {%- do down.pop(qi.index) -%}
    {%- do down.insert(qi.index, levels[qi.index] - 1) -%}
    {%- do out.append(down) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
