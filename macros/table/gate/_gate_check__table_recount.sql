{#- table_recount (tables): the table is whole (every combination of every dimension's nodes
    once; levels from 0 to the top; every node with one parent, which is a node); a published
    count is the cell's count and at least k (or a shown zero); a hidden cell shows no count;
    every mark tells the truth (primary: 0 < count < k, or 0 with hide_zeros; secondary: count
    >= k) and every display matches it; along each dimension every total lies between the
    largest and the sum of its parts and says additive exactly when it is their sum. Recounted
    from the staged long form, independently of the search; returns why it fails (counts of
    cells only), or ''.
    A noisy table (config, _table_gate_cells): every published value is recomputed here as its
    true count plus the ptable's v for its cell key (the ptable check table_noise vouched for,
    its last count read from it, not from the plan) and must be it, and 0 or at least k; no cell
    is a secondary (no search ran); every total says it is not additive (its true count still
    lies between its parts' largest and sum). -#}
{% macro _gate_check__table_recount(gate) %}
  {%- set shared = kanon._table_gate_cells(gate) -%}
  {%- if shared.refusal -%}{{ return(shared.refusal) }}{%- endif -%}
  {%- set dims, n, lo, staged, k = shared.dims, shared.n, shared.lo, shared.staged, shared.k -%}
  {%- set string = dbt.type_string() -%}
  {%- set noise = shared.plan.get('noise') if shared.noisy else none -%}
  {%- if shared.noisy and (noise is none or not noise.get('relation')) -%}
    {{ return("the long form of a noisy table records no ptable to recompute its published values with") }}
  {%- endif -%}
  {%- set shown = '_k_n' -%}
  {%- if noise is not none -%}
    {%- set imax = kanon._scratch_query('select max(cast(i as ' ~ dbt.type_bigint() ~ ')) from '
        ~ noise.relation).rows[0][0] | int -%}
    {%- set perturbed = kanon._noise_perturbed({'imax': imax}, '_k_staged', '_k_n') -%}
    {%- set shown = perturbed.value -%}
  {%- endif -%}
  {%- set whole = [] -%}
  {%- set grid = [] -%}
  {%- for i in range(n) -%}
    {%- do grid.append('(select count(*) from (select distinct _k_l' ~ i ~ ', _k_k' ~ i ~ ' from _k_staged) as _k_g' ~ i
        ~ ')') -%}
    {#- levels 0 to the top; each node one parent, itself a node -#}
    {%- do whole.append('(select count(*) from _k_staged where _k_l' ~ i ~ ' is null or _k_l' ~ i ~ ' < 0 or _k_l' ~ i
        ~ ' > ' ~ dims[i].top ~ ')') -%}
    {%- do whole.append('(select count(*) from (select _k_l' ~ i ~ ', _k_k' ~ i ~ ' from _k_staged group by _k_l' ~ i
        ~ ', _k_k' ~ i ~ ' having count(distinct coalesce(_k_pk' ~ i ~ ", '<top>')) > 1) as _k_two" ~ i ~ ')') -%}
    {%- do whole.append('(select count(*) from _k_staged as _k_c where _k_c._k_l' ~ i ~ ' < ' ~ dims[i].top
        ~ ' and not exists (select 1 from _k_staged as _k_p where _k_p._k_l' ~ i ~ ' = _k_c._k_l' ~ i
        ~ ' + 1 and _k_p._k_k' ~ i ~ ' = _k_c._k_pk' ~ i ~ '))') -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for i in range(n) -%}{%- do keys.append('_k_l' ~ i ~ ', _k_k' ~ i) -%}{%- endfor -%}
  {%- set sql -%}
    with {{ staged }}
    {%- if noise is not none %},
    {{ kanon._noise_ptable_cte(noise.relation) }}
    {%- endif %}
    select
      (select count(*) from (select _k_l0
        {{- ' from ' }}_k_staged group by {{ keys | join(', ') }} having count(*) > 1) as _k_twice)
      + {{ whole | join(' + ') }}
      + case when (select count(*) from _k_staged) <> {{ grid | join(' * ') }} then 1 else 0 end,
      coalesce(sum(case when _k_status = 'published'
        {{- ' and ' }}(_k_shown is null or _k_n is null or not coalesce(_k_shown = {{ shown }}, false)
        or (_k_shown > 0 and _k_shown < {{ k }}) or _k_shown < 0
        or (_k_n < {{ k }} and not (_k_n = 0 and {{ lo }} = 1))) then 1 else 0 end), 0),
      coalesce(sum(case when _k_status <> 'published' and _k_shown is not null then 1 else 0 end), 0),
      coalesce(sum(case
        when _k_status = 'primary' and _k_n >= {{ lo }} and _k_n < {{ k }} then 0
        when _k_status = 'secondary' and _k_n >= {{ k }} and {{ 'false' if noise is not none else 'true' }} then 0
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
          else _k_n between _k_max{{ i }} and _k_sum{{ i }}
            {{- ' and ' }}_k_said{{ i }} = ({{ 'false' if noise is not none else '_k_n = _k_sum' ~ i }})
        end)
        {%- endfor %}
        then 0 else 1 end), 0)
    from _k_staged
    {{ perturbed.join if noise is not none }}
  {%- endset -%}
  {%- set row = kanon._scratch_query(sql).rows[0] -%}
  {%- set problems = [
      (row[0], "the table is not whole (a cell missing or twice, a level out of range, or a node with no parent"
          ~ " or two)"),
      (row[1], "published cell(s) or total(s) show a count that is not theirs"
          ~ (" (their count plus the ptable's perturbation)" if noise is not none else "")
          ~ ", or below k=" ~ k),
      (row[2], "hidden cell(s) show a count"),
      (row[3], "hidden cell(s) whose mark does not tell the truth (primary: a count from " ~ lo
          ~ " to k-1; secondary: at least k" ~ ("; a noisy table has none" if noise is not none else "") ~ ")"),
      (row[4], "cell(s) whose display does not match their status and count"),
      (row[5], ("total(s) outside their parts' bounds or saying additive, which a noisy table's perturbed totals"
          ~ " are not" if noise is not none
          else "total(s) outside their parts' bounds or saying additive when they are not the sum of their parts,"
          ~ " or the reverse"))] -%}
  {%- for count, what in problems if count | int > 0 -%}
    {{ return((count | int) ~ " " ~ what) }}
  {%- endfor -%}
  {{ return('') }}
{% endmacro %}
