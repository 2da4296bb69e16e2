{#-
  kanon.release_counts: a k-anonymous count release, compiled to one portable SQL statement.

  Cells of at least k distinct privacy units are released as they are (PASS); the events of
  thinner cells climb the ladder, regrouped and recounted at coarser hierarchy levels, and are
  released at the first step where their group reaches k (GENERALIZE); what is left after the
  last step is suppressed (SUPPRESS). Documented in macros/release/_release.yml and the README.

  In a model materialized k_anonymous the same statement also carries the audit of the release
  (one row per finest cell, and the people suppressed), marked by the column _kanon_row; the
  materialization publishes the released rows and writes the rest to the private audit trail,
  in one transaction, so the events are grouped once for both.
-#}
{% macro release_counts(
    relation,
    privacy_unit=none,
    dimensions=none,
    hierarchies=none,
    k=none,
    ladder=none,
    measures=none,
    count_column=none,
    count_rows=false,
    null_policy='root',
    remainder=false,
    warn_missing=true,
    null_unit='ignore',
    dominance=none
) -%}
  {{ return(adapter.dispatch('release_counts', 'kanon')(
      relation, privacy_unit, dimensions, hierarchies, k, ladder, measures,
      count_column, count_rows, null_policy, remainder, warn_missing, null_unit, dominance)) }}
{%- endmacro %}

{% macro default__release_counts(relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column, count_rows, null_policy, remainder, warn_missing, null_unit, dominance) -%}
  {#- At parse time dbt only records refs and configs (config.get is a stub then); every
      argument is checked when the model compiles, before anything runs. The audit trail is a
      dependency so that `dbt build` creates it before the first release. -#}
  {%- if not execute -%}
    {%- do ref('kanon', 'kanon_audit_cells') -%}
    {%- do ref('kanon', 'kanon_audit_releases') -%}
    {{ return('select 1 as _kanon_parse_placeholder') }}
  {%- endif -%}
  {%- set who = kanon._who('kanon.release_counts') -%}
  {%- do kanon._check_boolean(warn_missing, 'warn_missing', who) -%}
  {%- set audit = config.get('materialized') == 'k_anonymous' -%}
  {%- set k, count_column = kanon._release_config_defaults(k, count_column, audit, who) -%}
  {%- set plan = kanon._release_plan(who, relation, privacy_unit, dimensions, hierarchies, k, ladder,
      measures, count_column, count_rows, null_policy, remainder, null_unit, dominance) -%}
  {#- Under k_anonymous the values missing from a hierarchy and the events without a person are
      counted by the release itself (rows 'missing' and 'null_unit' of the long form), in its
      transaction, not by a second scan of the events here. -#}
  {%- do kanon._release_check_inputs(plan, warn_missing and not audit, not audit) -%}
  {%- set q = kanon._quote -%}
  {%- set string = dbt.type_string() -%}
  {%- set people = kanon._release_people(plan) -%}
  {%- set last = plan.steps | length -%}
with
{{ kanon._release_ctes(plan, with_fates=audit, with_remainder=(remainder or audit), fate_json=audit) }}
select
  {%- if audit %}
  {{ kanon._long_form_tag('release', typed=true) }},
  {%- endif %}
  {%- for d in plan.dims %}
  _k_label{{ loop.index0 }} as {{ q(d.column) }},
  _k_level{{ loop.index0 }} as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  _k_n as {{ q(plan.count_column) }}
  {%- for name in plan.measures %},
  _k_m{{ loop.index0 }} as {{ q(name) }}
  {%- endfor %}
  {{- kanon._release_audit_columns(none) if audit }}
from _k_released
{%- if remainder %}
union all
{# One row for everything the ladder suppressed, released only when it too is not thin (at
   least k people, and not dominated): one group of the engine, keyed by a constant. #}
select
  {%- if audit %}
  {{ kanon._long_form_tag('release') }},
  {%- endif %}
  {%- for d in plan.dims %}
  cast(null as {{ string }}) as {{ q(d.column) }},
  cast(null as {{ dbt.type_int() }}) as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  _k_n as {{ q(plan.count_column) }}
  {%- for name in plan.measures %},
  _k_m{{ loop.index0 }} as {{ q(name) }}
  {%- endfor %}
  {{- kanon._release_audit_columns(none) if audit }}
from (
  {{ kanon._release_count_groups(plan, '(select 1 as _k_all, _k_r.* from _k_rest_' ~ last ~ ' as _k_r) as _k_rest', ['_k_all']) }}
) as _k_remainder
where not {{ kanon._release_is_thin(plan) }}
{%- endif %}
{%- if audit %}
union all
{# The audit: what happened to every finest cell (a PASS cell is released as it is) ... #}
select
  {{ kanon._long_form_tag('cell') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({
      'cell_labels': '_k_cell_json',
      'people': '_k_n_orig',
      'decision': '_k_decision',
      'ladder_step': '_k_step',
      'released_labels': 'case when _k_step = 0 then _k_cell_json else _k_released_json end',
      'released_levels': 'case when _k_step = 0 then ' ~ kanon._json_object(kanon._release_label_pairs(plan, '_k_level', false)) ~ ' else _k_released_levels_json end',
      'released_people': '_k_n_released',
  }) }}
from (
  select
    _k_fates.*,
    {{ kanon._json_object(kanon._release_label_pairs(plan, '_k_orig', true)) }} as _k_cell_json
  from _k_fates
) as _k_fates
union all
{# ... and how many distinct people the suppressed events belong to (the ladder's, and under
   null_policy='suppress' those with a NULL dimension) ... #}
select
  {{ kanon._long_form_tag('suppressed') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({'people': people}) }}
from (
  select _k_pu from _k_rest_{{ last }}
  {%- if plan.null_policy == 'suppress' %}
  union all
  select _k_pu from _k_merged_events where _k_merged = 2
  {%- endif %}
) as _k_suppressed
union all
{# ... and how many events have no person (NULL privacy unit: left out; null_unit says whether that refuses the release) ... #}
select
  {{ kanon._long_form_tag('null_unit') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({
      'people': ('0' if plan.count_rows else '(select count(*) from ' ~ plan.relation ~ ' where ' ~ q(plan.privacy_unit) ~ ' is null)'),
      'decision': "'" ~ plan.null_unit ~ "'",
      'cell_labels': "'" ~ ((plan.privacy_unit or '') | replace("'", "''")) ~ "'"}) }}
union all
{# ... and the policy the release was made under ... #}
select
  {{ kanon._long_form_tag('policy') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({
      'cell_labels': "'" ~ kanon._policy_fingerprint(plan, config.get('max_suppression')) ~ "'"}) }}
{%- if config.get('max_suppression') is not none %}
union all
{# ... and, for max_suppression, how many people went in. #}
select
  {{ kanon._long_form_tag('people_in') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({'people': people}) }}
from _k_events
{%- endif %}
{%- if warn_missing %}
{%- for d in plan.dims if d.hierarchy is not none %}
{%- set i = plan.dims.index(d) %}
union all
{# ... and, from the cells already grouped, how many distinct values a hierarchy lacks (the materialization warns). #}
select
  {{ kanon._long_form_tag('missing') }},
  {{- kanon._release_null_columns(plan) }}
  {{- kanon._release_audit_columns({
      'cell_labels': "'" ~ (d.name | replace("'", "''")) ~ "'",
      'people': 'count(distinct _k_v' ~ i ~ ')'}) }}
from _k_raw_cells
where _k_lv{{ i }}_0 = {{ d.depth }} and _k_v{{ i }} <> {{ kanon._null_key() }}
{%- endfor %}
{%- endif %}
{%- endif %}
{%- endmacro %}

{#- k and count_column default to the model's config. Under k_anonymous the gate checks the
    config's values and the audit records them, so a call may not contradict them. -#}
{% macro _release_config_defaults(k, count_column, audit, who) %}
  {%- if k is not none -%}{%- do kanon._check_k(k, who) -%}{%- endif -%}
  {%- set config_k = config.get('k') -%}
  {%- set config_count = config.get('count_column') or ('people' if audit else none) -%}
  {%- if audit and k is not none and config_k is not none and k != config_k -%}
    {{ exceptions.raise_compiler_error(who ~ ": k=" ~ k ~ " differs from the model's config k=" ~ config_k
        ~ ", which the k_anonymous gate checks and the audit records; set k in one place") }}
  {%- endif -%}
  {%- if audit and count_column is not none and count_column != config_count -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column='" ~ count_column ~ "' differs from the model's config count_column='"
        ~ config_count ~ "', which the k_anonymous gate checks; set it in one place") }}
  {%- endif -%}
  {{ return((k if k is not none else config_k, count_column or config_count or 'people')) }}
{% endmacro %}

{#- The audit columns of the long form, _kanon_<field> for every field of the audit trail's cell
    rows (see _audit_cell_fields), NULL unless given (typed, so every union branch agrees). -#}
{% macro _release_audit_columns(values) %}
  {%- set values = values or {} -%}
  {%- for name, type in kanon._audit_cell_fields() %},
  cast({{ values.get(name, 'null') }} as {{ type }}) as _kanon_{{ name }}
  {%- endfor %}
{% endmacro %}

{#- The released columns as NULLs, for the audit rows of the long form. -#}
{% macro _release_null_columns(plan) %}
  {%- set q = kanon._quote -%}
  {%- for d in plan.dims %}
  null as {{ q(d.column) }},
  null as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  null as {{ q(plan.count_column) }}
  {%- for name in plan.measures %},
  null as {{ q(name) }}
  {%- endfor %}
{%- endmacro %}

{#- (dimension name, column, is_text) triples for _json_object: columns prefix<i>, or
    prefix<i>_<level> when given the step's level per dimension. -#}
{% macro _release_label_pairs(plan, prefix, is_text, levels=none) %}
  {%- set pairs = [] -%}
  {%- for d in plan.dims -%}
    {%- set column = prefix ~ loop.index0 ~ (('_' ~ levels[loop.index0]) if levels is not none else '') -%}
    {%- do pairs.append((d.name, column, is_text)) -%}
  {%- endfor -%}
  {{ return(pairs) }}
{% endmacro %}
