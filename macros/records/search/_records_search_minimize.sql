{#-
  Phase 3 of the record search (_records_search), by entropy and discernibility: minimize. The
  least loss among satisfying nodes: a satisfying node not yet evaluated is skipped when its
  lower bound, or the bound an evaluated node below it gives (_k_bound: every record's loss only
  grows with generalization; a suppressed record costs at least k, or its loss at the node
  below), exceeds the best found; else evaluated, the lowest height first.

  reads   the lattice (`lattice`: _k_state, _k_evaluated, _k_lb), the nodes evaluated (`evals`:
          the best loss, each node's _k_bound)
  writes  a batch into `evals` per height, marked evaluated in `lattice`
          (_records_mark_evaluated), until no satisfying node can beat the best
-#}
{% macro _records_search_minimize(plan, search) %}
  {%- set t = search.tables -%}
  {%- set loss_column = '_k_loss_' ~ plan.loss -%}
  {%- set ns = namespace(done=plan.loss == 'height') -%}
  {%- for _ in range(plan.max_height + 2) if not ns.done -%}
    {%- set best = kanon._search_value('select min(' ~ loss_column ~ ') from ' ~ t.evals ~ ' where _k_passes = 1') -%}
    {%- set open = "_k_state = 'pass' and _k_evaluated = 0" ~ kanon._records_within_best(plan, search, loss_column)
        ~ ((' and not exists (select 1 from ' ~ t.evals ~ ' as _k_e where _k_e._k_bound > ' ~ best
        ~ ' and ' ~ kanon._records_at_least(plan, t.lattice, '_k_e') ~ ')') if best is not none else '') -%}
    {%- set lowest = kanon._search_value('select min(_k_height) from ' ~ t.lattice ~ ' where ' ~ open) -%}
    {%- if lowest is none -%}
      {%- set ns.done = true -%}
    {%- else -%}
      {%- set batch = kanon._records_search_batch(plan, search, open ~ ' and _k_height = ' ~ lowest) -%}
      {%- do kanon._records_mark_evaluated(t, batch) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}
