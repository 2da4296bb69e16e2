{#-
  The gate's own checks of a table release (see _release_checks), recounted from the staged long
  form, independently of the search that chose the pattern. k is the model's config, which the
  gate was given, not what the long form says of itself; the published columns and hide_zeros
  are read from the plan and then checked against the staged rows:
    table_search         the search protected every hidden cell (else its refusal)
    table_recount        the table is whole (every row x column, each row's and column's total
                         and the grand total, once each); a published count is the cell's count
                         and at least k (or a shown zero); a hidden cell shows no count; every mark
                         tells the truth (primary: 0 < count < k, or 0 with hide_zeros;
                         secondary: count >= k) and every display matches it; every total lies
                         between the largest and the sum of its parts and says additive exactly
                         when it is their sum
    table_line_rule      no row, column or total line has exactly one hidden cell (the total
                         minus the others would give it)
    no_exact_disclosure  every hidden cell lies on a rectangle of hidden cells that can move
                         without changing a total (_table_rectangles): a sufficient condition
                         for no hidden cell to be worked out exactly, checked from the counts,
                         in one set-based query (_table_open_cells_sql: each line's first
                         hidden cells tried first, every rectangle for the cells left, so that
                         the bound only saves time and never refuses a protected cell)
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
  {%- set lo = 0 if plan.hide_zeros else 1 -%}
  {%- set staged = kanon._table_staged_cte(plan, staging) -%}
  {%- if check == 'table_line_rule' -%}
    {%- set sql -%}
      with {{ staged }}
      select count(*) from (
        select _k_rl, _k_r from _k_staged group by _k_rl, _k_r
        having sum(case when _k_status = 'published' then 0 else 1 end) = 1
        union all
        select _k_cl, _k_c from _k_staged group by _k_cl, _k_c
        having sum(case when _k_status = 'published' then 0 else 1 end) = 1
      ) as _k_lines
    {%- endset -%}
    {%- set lines = run_query(sql).rows[0][0] | int -%}
    {{ return((lines ~ " line(s) of the table have exactly one hidden cell, which their total gives away") if lines > 0 else '') }}
  {%- elif check == 'no_exact_disclosure' -%}
    {#- set-based, as the search's own check: the hidden cells numbered by row and column, then
        those on no protecting rectangle (the first hidden cells of each line tried first, all of
        them for the cells left), counted -#}
    {%- set sql -%}
      with {{ staged }},
      _k_numbered as (
        select
          _k_staged.*,
          {{ kanon._table_line_numbers('_k_staged') }}
        from _k_staged
      )
      select count(*) from ({{ kanon._table_open_cells_sql('_k_numbered', 'true', k, lo, kanon._table_pick_limit()) }}) as _k_open
    {%- endset -%}
    {%- set open = run_query(sql).rows[0][0] | int -%}
    {{ return((open ~ " hidden cell(s) lie on no rectangle of hidden cells that could move without changing a total: "
        ~ "the totals may give them away") if open > 0 else '') }}
  {%- endif -%}
  {#- table_recount -#}
  {%- set string = dbt.type_string() -%}
  {%- set sql -%}
    {#- each line's sum and largest part: _k_lb_rows and _k_lb_columns of _table_with_bounds, in staged -#}
    with {{ staged }},
    _k_judged as (
      select
        _k_staged.*,
        case
          when _k_staged._k_rl = 0 and _k_staged._k_cl = 0 then null
          when _k_staged._k_rl = 0 then _k_lb_rows._k_sum = _k_staged._k_n
          when _k_staged._k_cl = 0 then _k_lb_columns._k_sum = _k_staged._k_n
          else _k_lb_rows._k_sum = _k_staged._k_n and _k_lb_columns._k_sum = _k_staged._k_n
        end as _k_sums,
        (_k_lb_rows._k_rl is null or _k_staged._k_n between _k_lb_rows._k_max and _k_lb_rows._k_sum)
        and (_k_lb_columns._k_cl is null or _k_staged._k_n between _k_lb_columns._k_max and _k_lb_columns._k_sum) as _k_bounded
      from _k_staged
      left join _k_lb_rows
        on _k_staged._k_cl = 1 and _k_lb_rows._k_rl = _k_staged._k_rl and _k_lb_rows._k_r = _k_staged._k_r
      left join _k_lb_columns
        on _k_staged._k_rl = 1 and _k_lb_columns._k_cl = _k_staged._k_cl and _k_lb_columns._k_c = _k_staged._k_c
    )
    select
      (select count(*) from (select _k_rl from _k_staged group by _k_rl, _k_r, _k_cl, _k_c having count(*) > 1) as _k_twice)
      + case when
        (select count(*) from _k_staged where _k_rl = 0 and _k_cl = 0)
          <> (select count(distinct _k_r) from _k_staged where _k_rl = 0) * (select count(distinct _k_c) from _k_staged where _k_cl = 0)
        or (select count(*) from _k_staged where _k_rl = 0 and _k_cl = 1) <> (select count(distinct _k_r) from _k_staged where _k_rl = 0)
        or (select count(*) from _k_staged where _k_rl = 1 and _k_cl = 0) <> (select count(distinct _k_c) from _k_staged where _k_cl = 0)
        or (select count(*) from _k_staged where _k_rl = 1 and _k_cl = 1) <> (case when (select count(*) from _k_staged) > 0 then 1 else 0 end)
        or (select count(*) from _k_staged where _k_rl not in (0, 1) or _k_cl not in (0, 1) or _k_rl is null or _k_cl is null) > 0
        or (select count(distinct _k_r) from _k_staged where _k_rl = 1) > 1
        or (select count(distinct _k_c) from _k_staged where _k_cl = 1) > 1
      then 1 else 0 end,
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
      coalesce(sum(case
        when _k_sums is null and _k_additive is null and _k_rl = 0 and _k_cl = 0 then 0
        when _k_bounded and _k_sums and _k_additive then 0
        when _k_bounded and not _k_sums and not _k_additive then 0
        else 1 end), 0)
    from _k_judged
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- set problems = [
      (row[0], "the table is not whole (a cell or total missing or twice, or a level other than 0 and 1)"),
      (row[1], "published cell(s) or total(s) show a count that is not theirs, or below k=" ~ k),
      (row[2], "hidden cell(s) show a count"),
      (row[3], "hidden cell(s) whose mark does not tell the truth (primary: a count from " ~ lo ~ " to k-1; secondary: at least k)"),
      (row[4], "cell(s) whose display does not match their status and count"),
      (row[5], "total(s) outside their parts' bounds or saying additive when they are not the sum of their cells, or the reverse")] -%}
  {%- for count, what in problems if count | int > 0 -%}
    {{ return((count | int) ~ " " ~ what) }}
  {%- endfor -%}
  {{ return('') }}
{% endmacro %}

{#- _k_staged: the staged table's published rows in the search's terms (levels, keys, the true
    count from _kanon_value, status and sign), plus what they show (count, display, additive). -#}
{% macro _table_staged_cte(plan, staging) %}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
_k_staged_rows as (
  select
    cast({{ q(plan.row ~ '_level') }} as {{ dbt.type_int() }}) as _k_rl,
    coalesce(cast({{ q(plan.row) }} as {{ string }}), {{ nk }}) as _k_r,
    cast({{ q(plan.column ~ '_level') }} as {{ dbt.type_int() }}) as _k_cl,
    coalesce(cast({{ q(plan.column) }} as {{ string }}), {{ nk }}) as _k_c,
    _kanon_value as _k_n,
    (1 - 2 * cast({{ q(plan.row ~ '_level') }} as {{ dbt.type_int() }})) * (1 - 2 * cast({{ q(plan.column ~ '_level') }} as {{ dbt.type_int() }})) as _k_sign,
    cast({{ q('status') }} as {{ string }}) as _k_status,
    {{ q(plan.count_column) }} as _k_shown,
    cast({{ q('display') }} as {{ string }}) as _k_display,
    {{ q('additive') }} as _k_additive
  from {{ staging }}
  where {{ kanon._long_form_is('release') }}
),

{{ kanon._table_with_bounds('_k_staged_rows', '_k_staged') }}
{%- endmacro %}
