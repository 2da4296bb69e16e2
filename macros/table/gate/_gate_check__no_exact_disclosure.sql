{#- no_exact_disclosure (tables): every hidden cell lies on a cube of hidden cells that can move
    without changing a total (by the protection width, rounded up, when the model's config
    promises one) (_table_cubes): a sufficient condition for no hidden cell to be worked out
    exactly (or narrower than the width), checked from the counts, set-based
    (_table_open_cells_sql: bounded cubes first, every cube for the cells left, so that the
    bound only saves time and never refuses a protected cell; one try when the bounds could
    prune nothing). -#}
{% macro _gate_check__no_exact_disclosure(gate) %}
  {%- set shared = kanon._table_gate_cells(gate) -%}
  {%- if shared.refusal -%}{{ return(shared.refusal) }}{%- endif -%}
  {#- a noisy table's totals are perturbed, not the sum of their parts: no hidden cell is their
      difference, and this check does not apply (check table_noise says so) -#}
  {%- if shared.noisy -%}{{ return('') }}{%- endif -%}
  {%- set plan, step, n, lo, staged = shared.plan, shared.step, shared.n, shared.lo, shared.staged -%}
  {%- set k, staging = shared.k, shared.staging -%}
  {#- set-based, as the search's own check, on scratch tables as the search's (the staged
      cells, numbered by node, and the leaves' paths, each joined many times): the hidden cells
      on no protecting cube (bounded cubes first, every cube for the cells left), counted -#}
  {%- set suffix = kanon._scratch_suffix() -%}
  {%- set cells, t, anc, theirs = kanon._scratch_name('_kanon_gc_' ~ suffix),
      kanon._scratch_name('_kanon_gt_' ~ suffix),
      kanon._scratch_name('_kanon_ga_' ~ suffix ~ '_'), kanon._scratch_name('_kanon_gl_' ~ suffix) -%}
  {%- set open_cells = kanon._scratch_name('_kanon_go_' ~ suffix) -%}
  {%- set scratch = [cells, t, theirs, open_cells] -%}
  {%- for i in range(n) -%}{%- do scratch.append(anc ~ i) -%}{%- endfor -%}
  {%- do kanon._search_drop(scratch) -%}
  {#- linked (_table_linked): checked together with the linked table's cells, their statuses
      from its mart and their counts recounted from the events, once the mart is seen to agree -#}
  {%- set searched = kanon._table_recorded_plan(plan, k) -%}
  {%- set glued = none -%}
  {%- if plan.get('linked') -%}
    {%- set refused = kanon._table_linked_refusal(searched) -%}
    {%- if refused -%}{{ return(refused.reason) }}{%- endif -%}
    {%- set glued = plan.linked.glued -%}
    {%- set keys = [] -%}
    {%- for i in range(n) -%}{%- do keys.append('_k_l' ~ i ~ ', _k_k' ~ i ~ ', _k_pk' ~ i) -%}{%- endfor -%}
    {%- do kanon._scratch_create(theirs, 'with ' ~ kanon._table_cells_ctes(searched) ~ ' select ' ~ keys | join(', ')
        ~ ", _k_n, _k_status from _k_table where substr(_k_k" ~ glued ~ ", 1, 1) = '1'") -%}
    {%- set staged = kanon._table_staged_cte(plan, staging, theirs) -%}
  {%- endif -%}
  {%- do kanon._scratch_create(cells, 'with ' ~ staged ~ ' select * from _k_staged', true) -%}
  {%- do kanon._table_numbered_tables(cells, kanon._table_tops(searched), t, anc) -%}
  {%- set bounds = kanon._table_first_try_bounds(n, anc) or {'limit': none, 'moves': none} -%}
  {%- do kanon._scratch_create(open_cells, kanon._table_open_cells_sql({'n': n, 'cells': t, 'anc': anc,
      'target': 'true', 'k': k, 'lo': lo, 'limit': bounds.limit, 'moves': bounds.moves, 'step': step,
      'glued': glued}), true) -%}
  {%- set open = run_query('select count(*) from ' ~ open_cells).rows[0][0] | int -%}
  {%- do kanon._search_drop(scratch) -%}
  {{ return((open ~ " hidden cell(s) lie on no cube of hidden cells that could move"
      ~ (" by " ~ step if step > 1 else "") ~ " without changing a total: "
      ~ "the totals may give them away" ~ (" (or narrow them below the protection)" if step > 1 else ""))
      if open > 0 else '') }}
{% endmacro %}
