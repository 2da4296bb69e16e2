{#-
  kanon.release_counts: a k-anonymous count release, compiled to one portable SQL statement.

  Cells of at least k distinct privacy units are released as they are (PASS); the events of
  thinner cells climb the ladder, regrouped and recounted at coarser hierarchy levels, and are
  released at the first step where their group reaches k (GENERALIZE); what is left after the
  last step is suppressed (SUPPRESS). Documented in macros/release/_release.yml and the README.
-#}
{% macro release_counts(
    relation,
    privacy_unit=none,
    dimensions=none,
    hierarchies=none,
    k=none,
    ladder=none,
    measures=none,
    count_column='people',
    count_rows=false,
    null_policy='root',
    remainder=false,
    warn_missing=true
) -%}
  {{ return(adapter.dispatch('release_counts', 'kanon')(
      relation, privacy_unit, dimensions, hierarchies, k, ladder, measures,
      count_column, count_rows, null_policy, remainder, warn_missing)) }}
{%- endmacro %}

{% macro default__release_counts(relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column, count_rows, null_policy, remainder, warn_missing) -%}
  {#- At parse time dbt only records refs and configs (config.get is a stub then); every
      argument is checked when the model compiles, before anything runs. -#}
  {%- if not execute -%}
    {{ return('select 1 as _kanon_parse_placeholder') }}
  {%- endif -%}
  {%- set k = k if k is not none else config.get('k') -%}
  {%- set plan = kanon._release_plan(relation, privacy_unit, dimensions, hierarchies, k, ladder,
      measures, count_column, count_rows, null_policy) -%}
  {%- do kanon._release_check_inputs(plan, warn_missing) -%}
  {%- set q = adapter.quote -%}
  {%- set last = plan.steps | length -%}
with
{{ kanon._release_ctes(plan, with_remainder=remainder) }}
select
  {%- for d in plan.dims %}
  _k_label{{ loop.index0 }} as {{ q(d.column) }},
  _k_level{{ loop.index0 }} as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  _k_n as {{ q(plan.count_column) }}
  {%- for name in plan.measures %},
  _k_m{{ loop.index0 }} as {{ q(name) }}
  {%- endfor %}
from _k_released
{%- if remainder %}
union all
{# One row for everything the ladder suppressed, released only when it too reaches k. #}
select
  {%- for d in plan.dims %}
  cast(null as {{ dbt.type_string() }}) as {{ q(d.column) }},
  cast(null as {{ dbt.type_int() }}) as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  {{ 'count(*)' if plan.count_rows else 'count(distinct _k_pu)' }} as {{ q(plan.count_column) }}
  {%- for name, expression in plan.measures.items() %},
  {{ expression }} as {{ q(name) }}
  {%- endfor %}
from _k_rest_{{ last }}
having {{ 'count(*)' if plan.count_rows else 'count(distinct _k_pu)' }} >= {{ plan.k }}
{%- endif %}
{%- endmacro %}
