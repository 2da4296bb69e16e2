{#-
  The gate's own checks of a table release (see _release_checks), recounted from the staged long
  form, independently of the search that chose the pattern. k is the model's config, which the
  gate was given, not what the long form says of itself; the dimensions and hide_zeros are read
  from the plan and then checked against the staged rows:
    table_search         the search protected every hidden cell (else its refusal)
    table_recount        the table is whole (every combination of every dimension's nodes once;
                         levels from 0 to the top; every node with one parent, which is a node);
                         a published count is the cell's count and at least k (or a shown
                         zero); a hidden cell shows no count; every mark tells the truth
                         (primary: 0 < count < k, or 0 with hide_zeros; secondary: count >= k)
                         and every display matches it; along each dimension every total lies
                         between the largest and the sum of its parts and says additive exactly
                         when it is their sum
    table_line_rule      no line (a total and its parts along one dimension) has exactly one
                         hidden cell (the total minus the others would give it)
    no_exact_disclosure  every hidden cell lies on a cube of hidden cells that can move without
                         changing a total (by the protection width, rounded up, when the model's
                         config promises one) (_table_cubes): a sufficient condition for no
                         hidden cell to be worked out exactly (or narrower than the width), checked from the counts, set-based
                         (_table_open_cells_sql: bounded cubes first, every cube for the cells
                         left, so that the bound only saves time and never refuses a protected
                         cell; one try when the bounds could prune nothing)
  Returns why the check fails (counts of cells only), or ''.
-#}
{% macro _table_gate_check(check, facts, staging, k) %}
  {%- set plan = fromjson(facts.release_plan or '{}') -%}
  {%- if plan.get('kind') != 'table' -%}
    {{ return("the long form carries no table release plan") }}
  {%- endif -%}
  {%- if check == 'table_search' -%}
    {{ return(plan.refused.reason if plan.refused else '') }}
  {%- endif -%}
  {#- the protection the model's config promises (release_table records it at parse time), held
      to as k is, whatever the plan says of itself -#}
  {%- set promised = (config.get('kanon_table') or {}).get('protection') -%}
  {%- set step = [plan.get('step', 1), 1 if promised is none else ((promised | round(0, 'ceil')) | int)] | max -%}
  {%- set dims = plan.dimensions -%}
  {%- set n = dims | length -%}
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set staged = kanon._table_staged_cte(plan, staging) -%}
  {%- if check == 'table_line_rule' -%}
    {%- set sql -%}
      with {{ staged }}
      select count(*) from (
        {%- for i in range(n) %}
        {%- set others = [] -%}
        {%- for j in range(n) if j != i -%}{%- do others.append('_k_l' ~ j) -%}{%- do others.append('_k_k' ~ j) -%}{%- endfor %}
        {% if not loop.first %}union all
        {% endif -%}
        select 1 as _k_line from (
          select {{ others | join(', ') }}, _k_l{{ i }} + 1 as _k_tl, _k_pk{{ i }} as _k_tk, _k_hidden from _k_staged where _k_pk{{ i }} is not null
          union all
          select {{ others | join(', ') }}, _k_l{{ i }} as _k_tl, _k_k{{ i }} as _k_tk, _k_hidden from _k_staged where _k_l{{ i }} > 0
        ) as _k_line{{ i }}
        group by {{ others | join(', ') }}, _k_tl, _k_tk
        having sum(_k_hidden) = 1
        {%- endfor %}
      ) as _k_lines
    {%- endset -%}
    {%- set lines = kanon._scratch_query(sql).rows[0][0] | int -%}
    {{ return((lines ~ " line(s) of the table have exactly one hidden cell, which their total gives away") if lines > 0 else '') }}
  {%- elif check == 'no_exact_disclosure' -%}
    {#- set-based, as the search's own check, on scratch tables as the search's (the staged
        cells, numbered by node, and the leaves' paths, each joined many times): the hidden cells
        on no protecting cube (bounded cubes first, every cube for the cells left), counted -#}
    {%- set suffix = kanon._scratch_suffix() -%}
    {%- set cells, t, anc, theirs = kanon._scratch_name('_kanon_gc_' ~ suffix), kanon._scratch_name('_kanon_gt_' ~ suffix),
        kanon._scratch_name('_kanon_ga_' ~ suffix ~ '_'), kanon._scratch_name('_kanon_gl_' ~ suffix) -%}
    {%- set open_cells = kanon._scratch_name('_kanon_go_' ~ suffix) -%}
    {%- set scratch = [cells, t, theirs, open_cells] -%}
    {%- for i in range(n) -%}{%- do scratch.append(anc ~ i) -%}{%- endfor -%}
    {%- for name in scratch -%}{%- do run_query('drop table if exists ' ~ name) -%}{%- endfor -%}
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
    {%- do kanon._scratch_create(open_cells, kanon._table_open_cells_sql(n, t, anc, 'true', k, lo,
        bounds.limit, bounds.moves, step, glued), true) -%}
    {%- set open = run_query('select count(*) from ' ~ open_cells).rows[0][0] | int -%}
    {%- for name in scratch -%}{%- do run_query('drop table if exists ' ~ name) -%}{%- endfor -%}
    {{ return((open ~ " hidden cell(s) lie on no cube of hidden cells that could move"
        ~ (" by " ~ step if step > 1 else "") ~ " without changing a total: "
        ~ "the totals may give them away" ~ (" (or narrow them below the protection)" if step > 1 else "")) if open > 0 else '') }}
  {%- endif -%}
  {#- table_recount -#}
  {%- set string = dbt.type_string() -%}
  {%- set whole = [] -%}
  {%- set grid = [] -%}
  {%- for i in range(n) -%}
    {%- do grid.append('(select count(*) from (select distinct _k_l' ~ i ~ ', _k_k' ~ i ~ ' from _k_staged) as _k_g' ~ i ~ ')') -%}
    {#- levels 0 to the top; each node one parent, itself a node -#}
    {%- do whole.append('(select count(*) from _k_staged where _k_l' ~ i ~ ' is null or _k_l' ~ i ~ ' < 0 or _k_l' ~ i ~ ' > ' ~ dims[i].top ~ ')') -%}
    {%- do whole.append('(select count(*) from (select _k_l' ~ i ~ ', _k_k' ~ i ~ ' from _k_staged group by _k_l' ~ i ~ ', _k_k' ~ i
        ~ ' having count(distinct coalesce(_k_pk' ~ i ~ ", '<top>')) > 1) as _k_two" ~ i ~ ')') -%}
    {%- do whole.append('(select count(*) from _k_staged as _k_c where _k_c._k_l' ~ i ~ ' < ' ~ dims[i].top
        ~ ' and not exists (select 1 from _k_staged as _k_p where _k_p._k_l' ~ i ~ ' = _k_c._k_l' ~ i ~ ' + 1 and _k_p._k_k' ~ i ~ ' = _k_c._k_pk' ~ i ~ '))') -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for i in range(n) -%}{%- do keys.append('_k_l' ~ i ~ ', _k_k' ~ i) -%}{%- endfor -%}
  {%- set sql -%}
    with {{ staged }}
    select
      (select count(*) from (select _k_l0 from _k_staged group by {{ keys | join(', ') }} having count(*) > 1) as _k_twice)
      + {{ whole | join(' + ') }}
      + case when (select count(*) from _k_staged) <> {{ grid | join(' * ') }} then 1 else 0 end,
      coalesce(sum(case when _k_status = 'published' and (_k_shown is null or _k_n is null or _k_shown <> _k_n
        or (_k_n < {{ k }} and not (_k_n = 0 and {{ lo }} = 1))) then 1 else 0 end), 0),
      coalesce(sum(case when _k_status <> 'published' and _k_shown is not null then 1 else 0 end), 0),
      coalesce(sum(case
        when _k_status = 'primary' and _k_n >= {{ lo }} and _k_n < {{ k }} then 0
        when _k_status = 'secondary' and _k_n >= {{ k }} then 0
        when _k_status = 'published' then 0
        else 1 end), 0),
      coalesce(sum(case
        when _k_status = 'published' and _k_display = cast(_k_shown as {{ string }}) then 0
        when _k_status = 'primary' and _k_display = '<{{ k }}' then 0
        when _k_status = 'secondary' and _k_display = '·' then 0
        else 1 end), 0),
      coalesce(sum(case when
        {%- for i in range(n) %}
        {% if not loop.first %}and {% endif -%}
        (case
          when _k_l{{ i }} = 0 then _k_said{{ i }} is null
          else _k_n between _k_max{{ i }} and _k_sum{{ i }} and _k_said{{ i }} = (_k_n = _k_sum{{ i }})
        end)
        {%- endfor %}
        then 0 else 1 end), 0)
    from _k_staged
  {%- endset -%}
  {%- set row = kanon._scratch_query(sql).rows[0] -%}
  {%- set problems = [
      (row[0], "the table is not whole (a cell missing or twice, a level out of range, or a node with no parent or two)"),
      (row[1], "published cell(s) or total(s) show a count that is not theirs, or below k=" ~ k),
      (row[2], "hidden cell(s) show a count"),
      (row[3], "hidden cell(s) whose mark does not tell the truth (primary: a count from " ~ lo ~ " to k-1; secondary: at least k)"),
      (row[4], "cell(s) whose display does not match their status and count"),
      (row[5], "total(s) outside their parts' bounds or saying additive when they are not the sum of their parts, or the reverse")] -%}
  {%- for count, what in problems if count | int > 0 -%}
    {{ return((count | int) ~ " " ~ what) }}
  {%- endfor -%}
  {{ return('') }}
{% endmacro %}

{#- _k_staged: the staged table's published rows in the search's terms (per dimension level,
    key and parent's key; the true count from _kanon_value, status), plus what they show (count,
    display, additive along each dimension as _k_said<i>) and each line's bounds. -#}
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
    _k_c._k_l{{ loop.index0 }}, _k_c._k_k{{ loop.index0 }}, _k_c._k_pk{{ loop.index0 }}, cast(null as {{ dbt.type_boolean() }}) as _k_said{{ loop.index0 }},
    {%- endfor %}
    _k_c._k_n,
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
    {%- do dims.append({'name': d.name, 'column': d.column, 'hierarchy': d.relation if d.hierarchy is not none else none,
        'level_columns': d.level_columns, 'top': d.top}) -%}
  {%- endfor -%}
  {{ return({'relation': plan.relation, 'privacy_unit': plan.privacy_unit, 'count_rows': plan.count_rows, 'dims': dims, 'k': k,
      'hide_zeros': plan.hide_zeros, 'linked': plan.get('linked')}) }}
{% endmacro %}
