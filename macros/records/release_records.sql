{#-
  kanon.release_records: a record-level release (a microdata extract) under the k_anonymous
  materialization. Finds the least-lossy full-domain generalization of the relation's
  quasi-identifiers (one level per column for every record) where, after suppressing at most the
  budget (config max_suppression, a share of records or of people; default 0), every class of
  records with the same quasi-identifiers describes at least k people and every sensitive column
  is l-diverse; then publishes the generalized records, shuffled. Documented in
  macros/records/_records.yml and the README.

  The search (macros/records/_records_search.sql) runs in the warehouse when the model compiles,
  on scratch tables (temporary, or in the private audit schema); what this macro returns is the
  release's long form: the published records (each with its person, for the gate's recount), and
  the facts. No node satisfying the model refuses the release: the long form then holds no
  records and the refusal, and the gate records it and keeps the previous release.
-#}
{% macro release_records(
    relation,
    columns,
    k=none,
    l=none,
    diversity='distinct',
    privacy_unit=none,
    suppression_unit='records',
    loss='non_uniform_entropy',
    missing_value_policy='star',
    pseudonym_key_env='KANON_PSEUDONYM_KEY',
    shuffle_seed='kanon',
    on_small_change='report'
) -%}
  {{ return(adapter.dispatch('release_records', 'kanon')(
      relation, columns, k, l, diversity, privacy_unit, suppression_unit, loss,
      missing_value_policy, pseudonym_key_env, shuffle_seed, on_small_change)) }}
{%- endmacro %}

{% macro default__release_records(relation, columns, k, l, diversity, privacy_unit, suppression_unit, loss,
    missing_value_policy, pseudonym_key_env, shuffle_seed, on_small_change) -%}
  {#- At parse time only the kind and the audit dependency are recorded (_release_at_parse_time). -#}
  {%- if not execute -%}
    {{ return(kanon._release_at_parse_time('records')) }}
  {%- endif -%}
  {%- set who = kanon._release_who('kanon.release_records') -%}
  {%- if config.get('materialized') != 'k_anonymous' -%}
    {{ exceptions.raise_compiler_error(who ~ ": a record release is only published through its gate: configure the"
        ~ " model materialized='k_anonymous' (with k), not '" ~ config.get('materialized') ~ "'") }}
  {%- endif -%}
  {%- do kanon._check_enum(on_small_change, 'on_small_change', ['report', 'refuse'], who) -%}
  {%- set k = kanon._release_config_defaults(k, none, true, who)[0] -%}
  {%- set plan = kanon._records_plan(who, relation, columns, k, l, diversity, privacy_unit, suppression_unit, loss,
      missing_value_policy, config.get('max_suppression') or 0, pseudonym_key_env, shuffle_seed) -%}
  {%- do plan.update({'on_small_change': on_small_change}) -%}
  {%- set identifiers = plan.columns | selectattr('role', 'equalto', 'identifier') | list -%}
  {%- set pseudonymized = identifiers | selectattr('pseudonym') | list -%}
  {%- if pseudonymized -%}
    {%- do kanon._records_pseudonym_check(pseudonym_key_env, who) -%}
  {%- endif -%}
  {%- set search = kanon._records_search(plan) -%}
  {%- do search.update({'nearly_unique': kanon._records_nearly_unique(plan, who)}) -%}
  {%- set policy = kanon._records_policy(plan, search) -%}
  {%- do kanon._release_learned_keep(policy.learned, {'input_rows': search.records_in}) -%}
  {%- set levels = kanon._records_node_levels(plan, search.node) -%}
  {%- set q = kanon._quote -%}
  {%- set keys = kanon._records_node_keys(plan) -%}
  {%- set published = kanon._records_published(plan) -%}
  {%- set nulls -%}
    {%- for c in published %}null as {{ q(c.name) }}, {% endfor -%}
  {%- endset %}
  {#- each published class against what the live extract shows (ADR 12), in records -#}
  {%- set class_keys = [] -%}
  {%- for qi in plan.qis -%}{%- do class_keys.append((qi.name, '_k_g' ~ qi.index)) -%}{%- endfor -%}
  {%- set compared = kanon._live_difference_ctes(kanon._release_live_relation(), class_keys, 'count(*)',
      "_k_fated where _k_fate = 'kept'", none, true) -%}
  {%- set statement -%}
with
{{ kanon._records_lookup_ctes(plan) }}
_k_rows as (
  select
    0 as _k_node,
    {{ kanon._records_missing_flag(plan) }} as _k_missing,
    {%- for qi in plan.qis %}
    {{ kanon._records_label(qi, levels[qi.index]) }} as _k_g{{ qi.index }},
    {%- endfor %}
    1 as _k_n,
    {%- if plan.privacy_unit is not none %}
    cast(_k_src.{{ q(plan.privacy_unit) }} as {{ dbt.type_string() }}) as _k_person,
    {%- endif %}
    {%- for name in plan.sensitive %}
    cast(_k_src.{{ q(name) }} as {{ dbt.type_string() }}) as _k_s{{ loop.index0 }},
    {%- endfor %}
    0 as _k_nue,
    0 as _k_nue_top,
    {%- for c in published %}
    {%- set value = kanon._records_published_value(plan, c, levels) %}
    {{ value }}{{ (' as ' ~ q(c.name)) if value != '_k_src.' ~ q(c.name) else '' }}{% if not loop.last %},{% endif %}
    {%- endfor %}
  from {{ kanon._records_from(plan) }}
  {%- if search.refused is not none %}
  where 1 = 0
  {%- endif %}
),
{{ kanon._records_judge_ctes(plan, '_k_rows', keys) }}
_k_fated as (
  select _k_rows.*, _k_judged._k_fate
  from _k_rows
  inner join _k_judged on
    {%- for key in keys %} {% if not loop.first %}and {% endif %}_k_judged.{{ key }} = _k_rows.{{ key }}{%- endfor %}
)
{%- if compared %},
{{ compared }}
{%- endif %}
{#- the published records, each with its person (for the gate's recount) and its place in the
    shuffled order: a seeded hash of what it shows, which says nothing of where it came from -#}
select
  {%- for c in published %}
  {{ q(c.name) }},
  {%- endfor %}
  {{ kanon._long_form_row('release', {
      'unit': '_k_person' if plan.privacy_unit is not none else 'null',
      'shuffle': kanon._records_shuffle_key(plan, published)}) }}
from _k_fated
where _k_fate = 'kept'
{{ kanon._long_form_facts_from(nulls, '_k_judged', [
    ('cells_passed', "coalesce(sum(case when _k_fate = 'kept' then 1 else 0 end), 0)"),
    ('cells_suppressed', "coalesce(sum(case when _k_fate in ('too_small', 'not_diverse') then 1 else 0 end), 0)")]) }}
{{ kanon._long_form_facts_from(nulls, '_k_fated', [
    ('records_in', 'count(*)'),
    ('records_suppressed', "coalesce(sum(case when _k_fate = 'kept' then 0 else 1 end), 0)"),
    ('people_in', 'count(distinct _k_person)' if plan.privacy_unit is not none else 'count(*)'),
    ('people_suppressed', "count(distinct case when _k_fate <> 'kept' then _k_person end)"
        if plan.privacy_unit is not none else "coalesce(sum(case when _k_fate = 'kept' then 0 else 1 end), 0)")]) }}
{{ kanon._live_difference_facts(nulls, compared, plan.k, on_small_change) }}
{#- input_rows, the records the search read (also when it refused), which the gate compares with
    the previous release's: the search counted them, and hands the count with what it learned -#}
{%- if pseudonymized %}
union all
{#- the key's fingerprint: the pseudonym of a constant no identifier is, never the key (ADR 12) #}
{{ kanon._long_form_key_fingerprint(nulls, plan.pseudonym_key_env) }}
{%- endif %}
union all
{{ kanon._long_form_closing_facts(nulls, plan.privacy_unit, policy) }}
  {%- endset -%}
  {#- the long form inside what the extract would publish, in its order (_long_form_published) -#}
  {{ kanon._long_form_published(statement, published | map(attribute='name') | list, '_kanon_shuffle') }}
{%- endmacro %}

{#- The columns a record release publishes, in the relation's order: every column but those
    dropped (role drop, and identifiers without a pseudonym). -#}
{% macro _records_published(plan) %}
  {%- set published = [] -%}
  {%- for c in plan.columns if c.role != 'drop' and not (c.role == 'identifier' and not c.get('pseudonym', false)) -%}
    {%- do published.append(c) -%}
  {%- endfor -%}
  {{ return(published) }}
{% endmacro %}

{#- What a published column shows: a quasi-identifier's label at the chosen level, an
    identifier's pseudonym, a sensitive or kept column as it is. -#}
{% macro _records_published_value(plan, c, levels) %}
  {%- if c.role == 'quasi_identifier' -%}
    {%- set qi = plan.qis | selectattr('name', 'equalto', c.name) | first -%}
    {{ return(kanon._records_label(qi, levels[qi.index])) }}
  {%- elif c.role == 'identifier' -%}
    {{ return(kanon._records_pseudonym('_k_src.' ~ kanon._quote(c.name), plan.pseudonym_key_env)) }}
  {%- endif -%}
  {{ return('_k_src.' ~ kanon._quote(c.name)) }}
{% endmacro %}

{#- md5 of the seed and a record's published values: the order it is published in. -#}
{% macro _records_shuffle_key(plan, published) %}
  {%- set parts = [kanon._sql_text(plan.shuffle_seed)] -%}
  {%- for c in published -%}
    {%- do parts.append('coalesce(cast(' ~ kanon._quote(c.name) ~ ' as ' ~ dbt.type_string() ~ "), '')") -%}
  {%- endfor -%}
  {{ return('md5(' ~ (parts | join(" || chr(31) || ")) ~ ')') }}
{% endmacro %}
