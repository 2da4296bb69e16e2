{#-
  Phase 2 of the record search (_records_search): classify. Only nodes whose lower bound is
  within the best loss found matter (_records_within_best). Entropy and height: top-down, every
  such node of unknown state at the highest height, lean (pass or fail only; by entropy the few
  that pass evaluated again in full, _records_complete_batch), since a node that fails there settles
  everything below it. Discernibility: binary search over heights, every node of unknown state
  at the height nearest the middle of their span (each batch settles one).

  reads   the lattice (`lattice`: _k_state, _k_lb, _k_height), the nodes evaluated (`evals`)
  writes  a batch into `evals` per height, and each node's state into `lattice`
          (_records_propagate), until no node within the best loss is of unknown state
-#}
{% macro _records_search_classify(plan, search) %}
  {%- set lattice = search.tables.lattice -%}
  {%- set top_down = plan.loss != 'discernibility' -%}
  {%- set ns = namespace(done=false) -%}
  {%- for _ in range(plan.max_height + 2) if not ns.done -%}
    {%- set unknown = '_k_state is null' ~ kanon._records_within_best(plan, search, '_k_loss_' ~ plan.loss) -%}
    {%- if top_down -%}
      {%- set height = kanon._search_value('select max(_k_height) from ' ~ lattice ~ ' where ' ~ unknown) -%}
    {%- else -%}
      {%- set middle = run_query('select _k_height from ' ~ lattice ~ ' where ' ~ unknown
          ~ ' group by _k_height order by abs(2 * _k_height - '
          ~ '(select min(_k_height) + max(_k_height) from ' ~ lattice ~ ' where ' ~ unknown
          ~ ')), _k_height limit 1').rows -%}
      {%- set height = middle[0][0] if middle else none -%}
    {%- endif -%}
    {%- if height is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set batch = kanon._records_search_batch(plan, search, unknown ~ ' and _k_height = '
          ~ (height | int), lean=top_down) -%}
      {%- if top_down and plan.loss != 'height' -%}
        {#- most of these nodes fail and need no loss: the few that pass are evaluated again, in full
            (by height, not: a lean row has the height, and the report evaluates the chosen node) -#}
        {%- do kanon._records_complete_batch(plan, search, batch) -%}
      {%- endif -%}
      {%- do kanon._records_propagate(plan, search, batch) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}

{#- ` and _k_lb <= <the best loss found>` (with room for rounding), or '' while none is found or
    the metric has no bound: which nodes can still hold the optimum. -#}
{% macro _records_within_best(plan, search, loss_column) %}
  {%- if plan.loss == 'discernibility' -%}
    {{ return('') }}
  {%- endif -%}
  {%- set best = kanon._search_value('select min(' ~ loss_column ~ ') from ' ~ search.tables.evals
      ~ ' where _k_passes = 1') -%}
  {%- if best is none -%}
    {{ return('') }}
  {%- endif -%}
  {%- set best = best | float -%}
  {{ return(' and _k_lb <= ' ~ (best + 1e-6 * ([best | abs, 1.0] | max))) }}
{% endmacro %}
