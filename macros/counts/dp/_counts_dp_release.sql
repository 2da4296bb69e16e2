{#-
  A count release with noise mode 'dp', as the long form (macros/core/long_form/_long_form.sql):
  one statement, in this order.

    _k_events            every event of a person (the engine's _counts_events_cte)
    _k_dp_cells          the published cells, fixed in advance: noise's cells, or every
                         combination of the hierarchies' labels at the declared levels
    _k_dp_person_cells   each person's declared cells at the declared levels, with their events
                         (events in no declared cell are left out, and counted)
    _k_dp_pairs          those cells numbered per person in an order that does not depend on the
                         counts (md5 of the cell and the person)
    _k_dp_counts         every declared cell's people, counting each person in at most
                         max_cells_per_person cells (the contribution bound: the rest is
                         dropped, and counted); cells nobody is in count 0
    _k_dp_noisy          each cell's draw u (_noise_dp_draw: keyed, fresh per release) and its
                         noisy count, count + z, z the table's row holding u (_noise_dp_table)

  Then the rows: a cell whose noisy count is at least k is published with it (the k rule on
  noisy counts: post-processing, which keeps the guarantee); every other declared cell goes to
  the trail, suppressed. The trail keeps each cell's true count and draw (column cell_key), from
  which with the plan's table and nonce its noise is replayed; readers see only the mart.
-#}
{% macro _counts_dp_release(plan) %}
  {%- if flags.WHICH not in ['run', 'build', 'retry'] -%}{{ return(kanon._counts_dp_preview(plan)) }}{%- endif -%}
  {%- set q = kanon._quote -%}
  {%- set noise = plan.noise -%}
  {%- set n = plan.dims | length -%}
  {%- set levels = plan.steps[0] -%}
  {%- set cells = [] -%}
  {%- for i in range(n) -%}{%- do cells.append('_k_c' ~ i) -%}{%- endfor -%}
  {%- set nulls = kanon._counts_null_columns(plan) -%}
  {%- set policy = kanon._counts_policy(plan) -%}
  {%- set group = {
      'ladder_step': '0', 'people': '_k_count', 'cell_key': '_k_u',
      'labels': kanon._json_object(kanon._counts_label_pairs(plan, '_k_c', '', true)),
      'levels': kanon._json_object(kanon._counts_label_pairs(plan, '_k_l', '', false))} -%}
  {%- set released = dict(group) -%}
  {%- do released.update({'decision': "'PASS'", 'people_shown': '_k_noisy'}) -%}
  {%- set suppressed = dict(group) -%}
  {%- do suppressed.update({'decision': "'SUPPRESS'"}) -%}
  {%- set statement -%}
with
{{ kanon._counts_events_cte(plan) }},
{{ kanon._counts_dp_ctes(plan, cells) }}
select
  {%- for d in plan.dims %}
  _k_c{{ loop.index0 }} as {{ q(d.column) }},
  _k_l{{ loop.index0 }} as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  _k_noisy as {{ q(plan.count_column) }},
  {{ kanon._long_form_row('release', released) }}
from _k_dp_noisy
where _k_noisy >= {{ plan.k }}
union all
select
  {{ nulls }}
  {{ kanon._long_form_row('group', suppressed) }}
from _k_dp_noisy
where _k_noisy < {{ plan.k }}
{{ kanon._long_form_facts_from(nulls, '_k_dp_noisy', [
    ('cells_passed', 'sum(case when _k_noisy >= ' ~ plan.k ~ ' then 1 else 0 end)'),
    ('cells_generalized', '0'),
    ('cells_suppressed', 'sum(case when _k_noisy < ' ~ plan.k ~ ' then 1 else 0 end)')]) }}
union all
{{ kanon._long_form_fact(nulls, 'people_suppressed', 'count(distinct _k_pair._k_person)',
    source='_k_dp_pairs as _k_pair inner join _k_dp_noisy as _k_cell on '
        ~ kanon._counts_dp_same_cell(cells, '_k_pair', '_k_cell')
        ~ ' where _k_pair._k_rank <= ' ~ noise.bound ~ ' and _k_cell._k_noisy < ' ~ plan.k) }}
union all
{{ kanon._long_form_fact(nulls, 'contributions_dropped', 'count(*)',
    source='_k_dp_pairs where _k_rank > ' ~ noise.bound) }}
union all
{{ kanon._long_form_fact(nulls, 'events_outside_cells',
    '(select count(*) from _k_events) - (select coalesce(sum(_k_events), 0) from _k_dp_person_cells)') }}
union all
{{ kanon._long_form_fact(nulls, 'events_null_unit',
    '(select count(*) from ' ~ plan.relation ~ ' as _k_source where _k_source.' ~ q(plan.privacy_unit)
        ~ ' is null and ' ~ kanon._counts_delay_condition(plan, '_k_source') ~ ')',
    kanon._sql_text(plan.null_unit)) }}
union all
{{ kanon._long_form_fact(nulls, 'input_rows', 'count(*)', source='_k_events') }}
union all
{{ kanon._long_form_closing_facts(nulls, plan.privacy_unit, policy) }}
union all
{{ kanon._long_form_key_fingerprint(nulls, noise.key_env) }}
  {%- endset -%}
  {{ return(kanon._long_form_published(statement, kanon._counts_published_names(plan))) }}
{% endmacro %}

{#- `a._k_c0 = b._k_c0 and ...`: the same cell. -#}
{% macro _counts_dp_same_cell(cells, a, b) %}
  {%- set parts = [] -%}
  {%- for c in cells -%}{%- do parts.append(a ~ '.' ~ c ~ ' = ' ~ b ~ '.' ~ c) -%}{%- endfor -%}
  {{ return(parts | join(' and ')) }}
{% endmacro %}

{#- What a dp release's SQL is under any other command (dbt show and the Preview buttons, compile,
    docs, test): the live mart's rows, or none before the first release. Never a draw: every draw
    is a release that spends budget, and an unaccounted one, repeated, would average the noise
    away. -#}
{% macro _counts_dp_preview(plan) %}
  {%- set live = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- if live is not none -%}
    {{ return('select ' ~ kanon._quote_list(kanon._counts_published_names(plan)) ~ ' from ' ~ live) }}
  {%- endif -%}
  {{ return('select ' ~ kanon._counts_published_columns(plan, none, 'cast(null as ' ~ dbt.type_bigint() ~ ')')
      ~ ' where 1 = 0') }}
{% endmacro %}
