{#-
  kanon.release_decisions: what release_counts (called with the same arguments) does to every
  finest cell: PASS, GENERALIZE (with the labels and levels it was released at) or SUPPRESS.
  One row per finest cell. It names thin cells, so it belongs in a private schema, never in front
  of report readers. (For a past release, kanon.audit_cell_fates replays the same fates from the
  audit trail.)
-#}
{% macro release_decisions(
    relation,
    privacy_unit=none,
    dimensions=none,
    hierarchies=none,
    k=none,
    ladder=none,
    count_column=none,
    count_rows=false,
    null_policy='root',
    null_unit='ignore',
    dominance=none,
    delay=none
) -%}
  {{ return(adapter.dispatch('release_decisions', 'kanon')(
      relation, privacy_unit, dimensions, hierarchies, k, ladder, count_column, count_rows, null_policy, null_unit,
      dominance, delay)) }}
{%- endmacro %}

{% macro default__release_decisions(relation, privacy_unit, dimensions, hierarchies, k, ladder, count_column,
    count_rows, null_policy, null_unit, dominance, delay) -%}
  {%- if not execute -%}
    {{ return('select 1 as _kanon_parse_placeholder') }}
  {%- endif -%}
  {%- set who = kanon._release_who('kanon.release_decisions') -%}
  {%- do kanon._warn_one_statement_release(who) -%}
  {%- set k, count_column = kanon._release_config_defaults(k, count_column, false, who) -%}
  {%- set plan = kanon._counts_plan(who, relation, privacy_unit, dimensions, hierarchies, k, ladder,
      {}, count_column, count_rows, null_policy, false, null_unit, dominance, delay) -%}
  {%- do kanon._counts_check_inputs(plan, false, true) -%}
  {%- set q = kanon._quote -%}
with
{{ kanon._counts_ctes(plan, with_released=false, with_fates=true) }}
select
  {%- for d in plan.dims %}
  _k_cell{{ loop.index0 }}_label as {{ q(d.column) }},
  {%- endfor %}
  _k_count as {{ q(plan.count_column) }},
  _k_decision as decision,
  _k_step as ladder_step
  {%- for d in plan.dims %},
  _k_out{{ loop.index0 }}_label as {{ q('released_' ~ d.column) }},
  _k_out{{ loop.index0 }}_level as {{ q('released_' ~ d.column ~ '_level') }}
  {%- endfor %},
  _k_out_count as {{ q('released_' ~ plan.count_column) }}
from _k_fates
{%- endmacro %}
