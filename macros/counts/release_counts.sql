{#-
  kanon.release_counts: a k-anonymous count release, compiled to one portable SQL statement.

  Cells of at least k distinct privacy units are released as they are (PASS); the events of
  thinner cells climb the ladder, regrouped and recounted at coarser hierarchy levels, and are
  released at the first step where their group reaches k (GENERALIZE); what is left after the
  last step is suppressed (SUPPRESS). Documented in macros/counts/_counts.yml and the README.

  In a model materialized k_anonymous the same statement is the release's long form
  (macros/core/long_form/_long_form.sql): the released rows, each saying which group it is, the groups
  left thin and suppressed, and the release's facts, marked by the column _kanon_row. The
  materialization publishes the released rows and writes the groups to the private audit trail,
  in one transaction, so the events are grouped once for both. The audit stores groups, not
  finest cells: kanon.audit_cell_fates replays the ladder to say what happened to any cell.
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
    dominance=none,
    delay=none,
    on_small_change='report',
    noise=none
) -%}
  {{ return(adapter.dispatch('release_counts', 'kanon')(
      relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column, count_rows, null_policy,
      remainder, warn_missing, null_unit, dominance, delay, on_small_change, noise)) }}
{%- endmacro %}

{% macro default__release_counts(relation, privacy_unit, dimensions, hierarchies, k, ladder, measures, count_column,
    count_rows, null_policy, remainder, warn_missing, null_unit, dominance, delay, on_small_change, noise) -%}
  {#- At parse time dbt only records refs and configs (config.get is a stub then); every
      argument is checked when the model compiles, before anything runs. The audit trail is a
      dependency so that `dbt build` creates it before the first release. -#}
  {%- if not execute -%}
    {{ return(kanon._release_at_parse_time('counts')) }}
  {%- endif -%}
  {%- set who = kanon._release_who('kanon.release_counts') -%}
  {%- do kanon._check_boolean(warn_missing, 'warn_missing', who) -%}
  {%- do kanon._check_enum(on_small_change, 'on_small_change', ['report', 'hold', 'refuse'], who) -%}
  {%- set audit = config.get('materialized') == 'k_anonymous' -%}
  {%- if on_small_change != 'report' and not audit -%}
    {{ exceptions.raise_compiler_error(who ~ ": on_small_change='" ~ on_small_change
        ~ "' compares a release with the previous one on the audit trail, which only the k_anonymous materialization"
        ~ " keeps; configure the model materialized='k_anonymous'") }}
  {%- endif -%}
  {%- if not audit -%}{%- do kanon._warn_one_statement_release(who) -%}{%- endif -%}
  {%- set k, count_column = kanon._release_config_defaults(k, count_column, audit, who) -%}
  {%- set plan = kanon._counts_plan(who, relation, privacy_unit, dimensions, hierarchies, k, ladder,
      measures, count_column, count_rows, null_policy, remainder, null_unit, dominance, delay, noise) -%}
  {%- do plan.update({'on_small_change': on_small_change}) -%}
  {%- if plan.noise is not none and plan.noise.mode == 'dp' -%}
    {#- differential privacy: declared cells, bounded contributions, a budget (macros/counts/dp/) -#}
    {%- set plan = kanon._counts_dp_plan(plan, ladder, remainder, dominance, on_small_change, who) -%}
    {%- do kanon._counts_check_inputs(plan, false, false) -%}
    {{ return(kanon._counts_dp_release(plan)) }}
  {%- endif -%}
  {#- Under k_anonymous the values missing from a hierarchy and the events without a person are
      counted by the release itself (rows 'missing' and 'null_unit' of the long form), in its
      transaction, not by a second scan of the events here. -#}
  {%- do kanon._counts_check_inputs(plan, warn_missing and not audit, not audit) -%}
  {%- set q = kanon._quote -%}
  {%- set names = kanon._counts_names(plan) -%}
  {%- set rest = '_k_rest_' ~ (names.last + 1) -%}
  {%- set nulls = kanon._counts_null_columns(plan) -%}
  {%- set statement -%}
with
{{ kanon._counts_ctes(plan, with_rest=(remainder or audit), with_thin=audit) }}
{%- if audit %},
{{ kanon._counts_difference_ctes(plan, names, on_small_change == 'hold', kanon._release_live_relation()) }}
{{ kanon._counts_release_rows(plan, nulls) }}
{%- else %}
{{ kanon._counts_one_statement_rows(plan, rest) }}
{%- endif %}
{%- if audit %}
{%- set policy = kanon._counts_policy(plan, config.get('max_suppression')) %}
{%- set last_levels = plan.steps[names.last] %}
union all
{# The audit: the groups the ladder left thin after its last step, suppressed ... #}
select
  {{ nulls }}
  {{ kanon._long_form_row('group', kanon._counts_group_fields(plan, '_k_d', last_levels, {
      'decision': "'SUPPRESS'",
      'ladder_step': names.last})) }}
from _k_groups_{{ names.last }}
where {{ kanon._counts_is_thin(plan) }}
{%- if plan.null_policy == 'suppress' %}
union all
{# ... and under null_policy='suppress' the finest cells with a NULL, suppressed up front ... #}
select
  {{ nulls }}
  {{ kanon._long_form_row('group',
                           kanon._counts_group_fields(plan, '_k_d', plan.steps[0], {'decision': "'SUPPRESS'"})) }}
from _k_merged_cells
where _k_merge = 2
{%- endif %}
{{ kanon._counts_long_form_facts(plan, names, policy, nulls, rest, warn_missing, on_small_change) }}
{%- endif %}
  {%- endset -%}
  {#- under k_anonymous, the long form inside what the mart would publish (_long_form_published) -#}
  {{ kanon._long_form_published(statement, kanon._counts_published_names(plan)) if audit else statement }}
{%- endmacro %}

{#- Under k_anonymous: every row to publish, as the comparison with the previous release leaves
    it (a held row shows what it showed before), with the group it is for the trail. A noisy
    release publishes each row's perturbed count (_k_noisy); a row perturbed to 0 is not
    published (a count table leaves out its zeros; a row of 0 would say the group has people)
    and goes to the trail as a group with people_shown 0. -#}
{% macro _counts_release_rows(plan, nulls) %}
  {%- set q = kanon._quote -%}
  {%- set shown = 'case when _k_held = 1 then _k_shown else _k_noisy end' -%}
  {%- set group = {
      'decision': "case when _k_remainder = 1 then 'REMAINDER' when _k_step = 0 then 'PASS' else 'GENERALIZE' end",
      'ladder_step': '_k_step', 'labels': '_k_labels', 'levels': '_k_levels', 'people': '_k_count',
      'people_shown': shown} -%}
  {%- if plan.noise is not none -%}{%- do group.update({'cell_key': '_k_cell_key'}) -%}{%- endif -%}
  {%- set zero = kanon._counts_perturbed_to_zero() -%}
select
  {%- for d in plan.dims %}
  _k_out{{ loop.index0 }}_label as {{ q(d.column) }},
  _k_out{{ loop.index0 }}_level as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  {{ shown }} as {{ q(plan.count_column) }},
  {%- for name in plan.measures %}
  case when _k_held = 1 then _k_live_measure{{ loop.index0 }} else _k_measure{{ loop.index0 }} end as {{ q(name) }},
  {%- endfor %}
  {{ kanon._long_form_row('release', group) }}
from _k_compared
{%- if plan.noise is not none %}
where not {{ zero }}
union all
select
  {{ nulls }}
  {{ kanon._long_form_row('group', group) }}
from _k_compared
where {{ zero }}
{%- endif %}
{%- endmacro %}

{#- Not under k_anonymous: the released groups and, with remainder, the remainder row, as one
    statement (no trail, no comparison; _warn_one_statement_release says so); a noisy release's
    rows perturbed, those perturbed to 0 left out. -#}
{% macro _counts_one_statement_rows(plan, rest) %}
  {%- for source in ['released', 'remainder'] if source == 'released' or plan.remainder %}
  {%- set perturbed = kanon._noise_perturbed(plan.noise, '_k_row') if plan.noise is not none
      else {'join': '', 'value': '_k_row._k_count'} %}
{% if not loop.first %}union all
{# One row for everything the ladder suppressed, released only when it too is not thin (at
   least k people, and not dominated): one group of the engine, keyed by a constant. #}
{% endif -%}
select
  {{ kanon._counts_published_columns(plan, '_k_row._k_out' if source == 'released' else none, perturbed.value,
                                     '_k_row.') }}
{%- if source == 'released' %}
from _k_released as _k_row
{%- else %}
from (
  {{ kanon._counts_groups(plan,
                          '(select 1 as _k_everything, _k_suppressed.* from ' ~ rest ~ ' as _k_suppressed) as _k_rest',
                          ['_k_everything']) }}
) as _k_row
{%- endif %}
{{ perturbed.join }}
where {{ 'not ' ~ kanon._counts_is_thin(plan, '_k_row') if source == 'remainder' else '1 = 1' }}
{%- if plan.noise is not none %}
  and coalesce({{ perturbed.value }}, -1) <> 0
{%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- The names of the released columns, in their order (_counts_published_columns). -#}
{% macro _counts_published_names(plan) %}
  {%- set names = [] -%}
  {%- for d in plan.dims -%}{%- do names.extend([d.column, d.column ~ '_level']) -%}{%- endfor -%}
  {%- do names.append(plan.count_column) -%}
  {%- do names.extend(plan.measures) -%}
  {{ return(names) }}
{% endmacro %}

{#- The facts of a count release's long form (_long_form_facts): its finest cells by decision, the
    people suppressed, the events without a person, the events read, the closing facts, the
    people in (for max_suppression), the values missing from each hierarchy, and what changed
    since the previous release; each `union all` and its fact row. -#}
{% macro _counts_long_form_facts(plan, names, policy, nulls, rest, warn_missing, on_small_change) -%}
{%- set q = kanon._quote -%}
{# ... and the facts of the release: the finest cells by decision ... #}
union all
{{ kanon._long_form_fact(nulls, 'cells_passed', 'count(*)',
    source='_k_groups_0 where not ' ~ kanon._counts_is_thin(plan)) }}
union all
{{ kanon._long_form_fact(nulls, 'cells_generalized',
    '(select count(*) from _k_thin_0) - (select count(*) from _k_thin_' ~ names.last ~ ')') }}
union all
{{ kanon._long_form_fact(nulls, 'cells_suppressed', '(select count(*) from _k_thin_' ~ names.last ~ ')'
    ~ (' + (select count(*) from _k_merged_cells where _k_merge = 2)' if plan.null_policy == 'suppress' else '')) }}
union all
{# ... the people suppressed (the ladder's, and under null_policy='suppress' those with a NULL) ... #}
{{ kanon._long_form_fact(nulls, 'people_suppressed', kanon._counts_people(plan),
    source='(select _k_person from ' ~ rest
        ~ (' union all select _k_person from _k_merge_events where _k_merge = 2'
           if plan.null_policy == 'suppress' else '')
        ~ ') as _k_suppressed') }}
union all
{# ... the events without a person (left out; null_unit says whether that refuses the release) ... #}
{{ kanon._long_form_fact(nulls, 'events_null_unit',
    '0' if plan.count_rows else '(select count(*) from ' ~ plan.relation ~ ' as _k_source where _k_source.'
        ~ q(plan.privacy_unit) ~ ' is null and ' ~ kanon._counts_delay_condition(plan, '_k_source') ~ ')',
    kanon._sql_text(plan.null_unit)) }}
union all
{# ... the events it read (with a person, old enough), which the gate compares with the previous release's ... #}
{{ kanon._long_form_fact(nulls, 'input_rows', 'count(*)', source='_k_events') }}
union all
{# ... the privacy unit, the policy the release was made under, and its plan for replaying cell fates ... -#}
{{ kanon._long_form_closing_facts(nulls, plan.privacy_unit, policy) }}
{%- if plan.noise is not none %}
union all
{# ... for a noisy release, which key its cell keys were made with (a fingerprint, never the key) ... #}
{{ kanon._long_form_key_fingerprint(nulls, plan.noise.key_env) }}
{%- endif %}
{%- if config.get('max_suppression') is not none %}
union all
{# ... for max_suppression, how many people went in ... #}
{{ kanon._long_form_fact(nulls, 'people_in', kanon._counts_people(plan), source='_k_events') }}
{%- endif %}
{%- if warn_missing %}
{%- for d in plan.dims if d.hierarchy is not none %}
{%- set i = plan.dims.index(d) %}
union all
{# ... and, from the cells already grouped, how many distinct values a hierarchy lacks. #}
{{ kanon._long_form_fact(nulls, 'missing_values', 'count(distinct _k_d' ~ i ~ '_value)', kanon._sql_text(d.name),
    source='_k_raw_cells where _k_d' ~ i ~ '_level0 = ' ~ d.depth ~ ' and _k_d' ~ i ~ '_value <> '
        ~ kanon._null_key()) }}
{%- endfor %}
{%- endif %}
{# ... and what changed since the previous release (rows compared, changed by 1 to k-1, held, appeared, gone). #}
{{ kanon._counts_difference_facts(nulls, on_small_change, plan.noise is not none) }}
{%- endmacro %}

{#- The released columns: each dimension's label and level (from <prefix><i>_label and
    <prefix><i>_level, NULL when prefix is none), the count, the measures (<measures>_k_measure<j>). -#}
{% macro _counts_published_columns(plan, prefix, count, measures='') %}
  {%- set q = kanon._quote -%}
  {%- set string, int = dbt.type_string(), dbt.type_int() -%}
  {%- for d in plan.dims %}
  {{ (prefix ~ loop.index0 ~ '_label') if prefix else 'cast(null as ' ~ string ~ ')' }} as {{ q(d.column) }},
  {{ (prefix ~ loop.index0 ~ '_level') if prefix else 'cast(null as ' ~ int ~ ')' }} as {{ q(d.column ~ '_level') }},
  {%- endfor %}
  {{ count }} as {{ q(plan.count_column) }}
  {%- for name in plan.measures %},
  {{ measures }}_k_measure{{ loop.index0 }} as {{ q(name) }}
  {%- endfor %}
{%- endmacro %}

{#- The released columns as NULLs, for the audit rows of the long form (with a trailing comma). -#}
{% macro _counts_null_columns(plan) %}
  {%- set q = kanon._quote -%}
  {%- for d in plan.dims -%}
  null as {{ q(d.column) }}, null as {{ q(d.column ~ '_level') }},
  {% endfor -%}
  null as {{ q(plan.count_column) }},
  {%- for name in plan.measures %} null as {{ q(name) }},{% endfor %}
{%- endmacro %}

{#- A group's fields in the long form: `fields` plus its labels and levels as JSON (from columns
    <prefix><i>_label / _level, or at the given levels <prefix><i>_label<L>) and its people. -#}
{% macro _counts_group_fields(plan, prefix, levels, fields) %}
  {%- set group = dict(fields) -%}
  {%- do group.update({
      'labels': kanon._json_object(kanon._counts_label_pairs(plan, prefix, '_label', true, levels)),
      'levels': kanon._json_object(kanon._counts_label_pairs(plan, prefix, '_level', false, levels)),
      'people': '_k_count'}) -%}
  {{ return(group) }}
{% endmacro %}

{#- (dimension name, column, is_text) triples for _json_object: columns <prefix><i><suffix>, or
    <prefix><i><suffix><level> when given the step's level per dimension. -#}
{% macro _counts_label_pairs(plan, prefix, suffix, is_text, levels=none) %}
  {%- set pairs = [] -%}
  {%- for d in plan.dims -%}
    {%- set column = prefix ~ loop.index0 ~ suffix ~ ((levels[loop.index0] | string) if levels is not none else '') -%}
    {%- do pairs.append((d.name, column, is_text)) -%}
  {%- endfor -%}
  {{ return(pairs) }}
{% endmacro %}
