{#-
  The lattice search of kanon.release_records, run by the macro when the model compiles: the
  warehouse does the counting, the macro only steers. Three scratch tables (_scratch_table: private
  to the session; on Spark, and on Postgres, where workers may then scan them in parallel, unlogged
  tables in the private audit schema; dropped at the end, and by the model's next search after a
  crash): the level-0 class table (one scan of the relation, then copied once with its label
  codes packed into words, _records_pack_classes), the lattice (one row per node: a level per
  quasi-identifier, a lower bound on its loss and a mask per word), and the evaluated nodes. A
  node is evaluated on the class table, never on the raw rows; monotonicity settles the rest: a
  node that satisfies the model makes every more general node satisfy it, and one that fails
  makes every less general one fail (a class of a more general node is a union of classes, so
  it is at least as large and as diverse; records suppressed there were suppressed below).
  Entropy l-diversity with a suppression budget is not monotone (a union of a diverse and a thin
  class can fall below ln(l)): there only k's failures are propagated.

  A node's loss is never below its lower bound, known without evaluating it: for non-uniform
  entropy, the loss of its generalization with nothing suppressed (a suppressed record costs its
  loss at the top, the most any node charges it), summed from one pass over the class table; for
  height, the height. Discernibility has no such bound.

  Each phase is a macro of its own in macros/records/search/, whose header says what it reads
  and writes; this one only strings them together. The state they share is the dict the first
  returns (`search`): the scratch tables' names (`tables`), the packed words, the budget, and the
  number of the last batch evaluated (`progress`). Every phase evaluates nodes a batch at a time
  (_records_search_batch.sql: the batches, and what each tells of the lattice by monotonicity;
  _records_search_evaluate.sql: the SQL evaluating a node on the class table).

    0. classes   (_records_search_classes) the session (_search_session: scratch names, the
                 planner settings, the timers), the class table and its words
       lattice   (_records_search_lattice) every node, with its loss's lower bound
    1. descend   (_records_search_descend; entropy, height) from the most general node,
                 greedily: evaluate the node's direct predecessors and step to the one of least
                 loss that satisfies the model, until none does. Its loss bounds the optimum
                 from above.
    2. classify  (_records_search_classify) only nodes whose lower bound is within the best loss
                 found matter. Entropy and height: top-down, every such node of unknown state at
                 the highest height (a node that fails there settles everything below it).
                 Discernibility: binary search over heights, every node of unknown state at the
                 middle height.
    3. minimize  (_records_search_minimize) the least loss among satisfying nodes: a satisfying
                 node not yet evaluated is skipped when its lower bound, or the bound an
                 evaluated node below it gives (every record's loss only grows with
                 generalization; a suppressed record costs at least k, or its loss at the node
                 below), exceeds the best found; else evaluated, lowest first. Ties: least
                 height, then the smallest levels in the order the columns come.
    4. report    (_records_search_report) the chosen node's figures, and for each
                 quasi-identifier how many suppressed records one more step on it would rescue.

  Naming: a node's level of quasi-identifier i is _k_l<i>, its number _k_node and height
  _k_height; a class's packed label words _k_w<j>, a node's masks of them _k_m<j>, and a class's
  labels at a node (a word masked) _k_k<j>; the evaluation's CTEs are named in
  _records_search_evaluate.sql.

  No node satisfying the model within the budget refuses the release (reported from the most
  general node: how far it is from k, or from l).
-#}
{% macro _records_search(plan) %}
  {%- set search = kanon._records_search_classes(plan) -%}
  {%- if search.records_in == 0 -%}
    {{ return(kanon._records_search_nothing(plan, search)) }}
  {%- endif -%}
  {%- do kanon._records_search_lattice(plan, search) -%}
  {%- do kanon._records_search_descend(plan, search) -%}
  {%- do kanon._records_search_classify(plan, search) -%}
  {%- do kanon._records_search_minimize(plan, search) -%}
  {{ return(kanon._records_search_report(plan, search)) }}
{% endmacro %}

{#- The order that picks the best of satisfying nodes: least loss, then least height, then the
    smallest levels in the order the columns come. -#}
{% macro _records_search_order(plan) %}
  {{ return('_k_loss_' ~ plan.loss ~ ', _k_height, ' ~ (kanon._records_levels(plan) | join(', '))) }}
{% endmacro %}

{#- ['_k_l0', '_k_l1', ...]: the lattice's level columns, in the order the columns come. -#}
{% macro _records_levels(plan) %}
  {%- set levels = [] -%}
  {%- for qi in plan.qis -%}{%- do levels.append('_k_l' ~ qi.index) -%}{%- endfor -%}
  {{ return(levels) }}
{% endmacro %}

{#- `<node> is at least as general as <other>` in every column. -#}
{% macro _records_at_least(plan, node, other) %}
  {%- set parts = [] -%}
  {%- for qi in plan.qis -%}{%- do parts.append(node ~ '._k_l' ~ qi.index ~ ' >= ' ~ other ~ '._k_l' ~ qi.index) -%}
  {%- endfor -%}
  {{ return(parts | join(' and ')) }}
{% endmacro %}

{#- Drops the search's scratch tables (the class table is the packed one once packed). -#}
{% macro _records_drop_temporary(t) %}
  {%- do kanon._search_drop([t.evals, t.lattice, t.classes, t.packed]) -%}
{% endmacro %}

{#- The first row of `sql` over the evals table as a dict (lower-case column names; the levels
    as a list 'levels'), or none. -#}
{% macro _records_node_row(search, sql) %}
  {%- set result = run_query(sql) -%}
  {%- if result.rows | length == 0 -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set row = {} -%}
  {%- for name in result.column_names -%}
    {%- set value = result.rows[0][loop.index0] -%}
    {%- do row.update({name | lower: value}) -%}
  {%- endfor -%}
  {{ return(row) }}
{% endmacro %}

{#- The levels of a node row, in the order the quasi-identifiers come. -#}
{% macro _records_node_levels(plan, node) %}
  {%- set levels = [] -%}
  {%- for qi in plan.qis -%}{%- do levels.append(node['_k_l' ~ qi.index] | int) -%}{%- endfor -%}
  {{ return(levels) }}
{% endmacro %}

{#- `_k_l0 = a and _k_l1 = b ...`: the lattice condition selecting one node by its levels. -#}
{% macro _records_node_condition(plan, levels) %}
  {%- set parts = [] -%}
  {%- for qi in plan.qis -%}{%- do parts.append('_k_l' ~ qi.index ~ ' = ' ~ levels[loop.index0]) -%}{%- endfor -%}
  {{ return('(' ~ (parts | join(' and ')) ~ ')') }}
{% endmacro %}
