{#-
  kanon.release_table: a two-way table of counts about people with its row, column and grand
  totals, published so that no hidden cell can be worked out from the totals. Documented in
  macros/table/_table.yml and the README ("Releasing tables with totals").

  Every cell and total counts distinct people (rows with count_rows=true). Cells and totals
  with 0 < count < k are hidden (primary; zeros too with hide_zeros); the search
  (_table_search, run when the model compiles) hides further cells (secondary) until every
  hidden cell lies on a rectangle of hidden cells that can move without changing any total.
  What this macro returns is the release's long form (macros/release/_long_form.sql): one
  published row per cell and per total, with its status, its display (`<k`, `·` or the count)
  and, for a total, whether it is the sum of its cells; the hidden cells as audit groups
  (PRIMARY, SECONDARY: labels and levels, never a count); and the facts. The gate recounts the
  staged table on its own before anything is published (checks table_search, table_recount,
  table_line_rule, no_exact_disclosure). Only under materialized='k_anonymous'.
-#}
{% macro release_table(
    relation,
    privacy_unit=none,
    row_dimension=none,
    column_dimension=none,
    k=none,
    count_column=none,
    count_rows=false,
    hide_zeros=false,
    total_label='Total',
    null_unit='ignore'
) -%}
  {{ return(adapter.dispatch('release_table', 'kanon')(
      relation, privacy_unit, row_dimension, column_dimension, k, count_column, count_rows, hide_zeros, total_label, null_unit)) }}
{%- endmacro %}

{% macro default__release_table(relation, privacy_unit, row_dimension, column_dimension, k, count_column, count_rows, hide_zeros, total_label, null_unit) -%}
  {#- At parse time only the kind, the audit dependency and what a reader of the table must know
      to read its marks (are zeros hidden?) are recorded: kanon_tools' attack reads the latter. -#}
  {%- if not execute -%}
    {%- do config(kanon_table={'hide_zeros': hide_zeros is sameas true}) -%}
    {{ return(kanon._release_at_parse_time('table')) }}
  {%- endif -%}
  {%- set who = kanon._who('kanon.release_table') -%}
  {%- do kanon._check_relation(relation, 'relation', who) -%}
  {%- if config.get('materialized') != 'k_anonymous' -%}
    {{ exceptions.raise_compiler_error(who ~ ": a table with totals is only published through its gate: configure the model"
        ~ " materialized='k_anonymous' (with k), not '" ~ config.get('materialized') ~ "'") }}
  {%- endif -%}
  {%- set k, count_column = kanon._release_config_defaults(k, count_column, true, who) -%}
  {%- set plan = kanon._table_plan(who, relation, privacy_unit, row_dimension, column_dimension, k, count_column,
      count_rows, hide_zeros, total_label, null_unit) -%}
  {%- set search = kanon._table_search(plan) -%}
  {{ return(kanon._table_long_form(plan, search, kanon._table_policy(plan, search))) }}
{%- endmacro %}

{#- The long form of a table release: every cell and total of the plan's table with the search's
    secondaries hidden, the hidden cells' audit groups and the facts. -#}
{% macro _table_long_form(plan, search, policy) -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set nk = kanon._null_key() -%}
  {%- set r, c = plan.row.column, plan.column.column -%}
  {%- set label = "case when _k_{side}l = 1 then " ~ kanon._sql_text(plan.total_label) ~ " when _k_{side} = " ~ nk ~ " then null else _k_{side} end" -%}
  {%- set nulls -%}
    null as {{ q(r) }}, null as {{ q(r ~ '_level') }}, null as {{ q(c) }}, null as {{ q(c ~ '_level') }},
    null as {{ q(plan.count_column) }}, null as {{ q('status') }}, null as {{ q('display') }}, null as {{ q('additive') }},
  {%- endset %}
with
{{ kanon._table_cells_ctes(plan, search.secondaries) }}
{# every cell and total, its count shown only when published #}
select
  cast({{ label.replace('{side}', 'r') }} as {{ string }}) as {{ q(r) }},
  cast(_k_rl as {{ dbt.type_int() }}) as {{ q(r ~ '_level') }},
  cast({{ label.replace('{side}', 'c') }} as {{ string }}) as {{ q(c) }},
  cast(_k_cl as {{ dbt.type_int() }}) as {{ q(c ~ '_level') }},
  cast(case when _k_status = 'published' then _k_n end as {{ dbt.type_bigint() }}) as {{ q(plan.count_column) }},
  cast(_k_status as {{ string }}) as {{ q('status') }},
  cast(case _k_status
    when 'primary' then '<{{ plan.k }}'
    when 'secondary' then '·'
    else cast(_k_n as {{ string }})
  end as {{ string }}) as {{ q('display') }},
  cast(_k_additive as {{ dbt.type_boolean() }}) as {{ q('additive') }},
  {{ kanon._long_form_row('release', {
      'decision': "case _k_status when 'primary' then 'PRIMARY' when 'secondary' then 'SECONDARY' end",
      'labels': kanon._json_object([(plan.row.name, label.replace('{side}', 'r'), true), (plan.column.name, label.replace('{side}', 'c'), true)]),
      'levels': kanon._json_object([(plan.row.name, '_k_rl', false), (plan.column.name, '_k_cl', false)]),
      'value': '_k_n'}) }}
from _k_table
union all
{# the facts: cells by fate (counts of cells, never a hidden cell's count) ... #}
{{ kanon._long_form_fact(nulls, 'cells_passed', "coalesce(sum(case when _k_status = 'published' then 1 else 0 end), 0)", source='_k_table') }}
union all
{{ kanon._long_form_fact(nulls, 'cells_suppressed', "coalesce(sum(case when _k_status = 'published' then 0 else 1 end), 0)", source='_k_table') }}
union all
{# ... the events without a person (left out; null_unit says whether that refuses the release) ... #}
{{ kanon._long_form_fact(nulls, 'events_null_unit',
    '0' if plan.count_rows else '(select count(*) from ' ~ plan.relation ~ ' where ' ~ q(plan.privacy_unit) ~ ' is null)',
    kanon._sql_text(plan.null_unit)) }}
union all
{{ kanon._long_form_fact(nulls, 'privacy_unit', text=kanon._sql_text(plan.privacy_unit or '')) }}
union all
{# ... and the policy and plan the table was released under #}
{{ kanon._long_form_fact(nulls, 'policy_fingerprint', text=kanon._sql_text(policy.fingerprint)) }}
union all
{{ kanon._long_form_fact(nulls, 'release_plan', text=kanon._sql_text(policy.plan)) }}
{%- endmacro %}
