{#-
  The long form: what a release kind hands the k_anonymous materialization. One statement yields
  the published rows and the audit of the release together, each row marked in the column
  _kanon_row with its kind; the materialization publishes the 'release' rows, appends every row
  with a decision to the private audit trail (kanon_audit_groups), and reads the facts, in one
  transaction. The model's config says at parse time that it hands a long form
  (kanon_release_kind, set by the release macro); a hand-written model hands its published rows
  as they are. The kinds of row, defined here once:

    release  a published row: the released columns, and the group fields below saying which
             group it is (decision PASS, GENERALIZE or REMAINDER, ladder step, labels and levels
             as JSON, people)
    group    a group that was not published (decision SUPPRESS; or, in a noisy count release,
             a released group perturbed to 0: its own decision, people_shown 0), with the
             same fields
    fact     one named fact of the release (_kanon_fact), a number (_kanon_value) or a text
             (_kanon_text): see _long_form_facts

  Its columns: _kanon_row, then _kanon_<field> for every group field of the audit trail
  (_audit_group_fields), then _kanon_fact, _kanon_value, _kanon_text, and for a record release
  _kanon_unit (a published record's person, for the gate's recount of people per class) and
  _kanon_shuffle (the order its records are published in). None of them is published.
-#}
{% macro _long_form_kinds() %}
  {{ return(['release', 'group', 'fact']) }}
{% endmacro %}

{#- The facts a long form may state, each read by the gate (_release_facts) or recorded. Every
    long form states its own four; a kind declares the others it states (the facts of its
    descriptor, _release_kind), and the gate reads only those. Given a kind, its facts; else
    every kind's.
      privacy_unit       text: the privacy unit's column (every long form)
      policy_fingerprint text: the policy fingerprint (every long form)
      release_plan       text: the dimensions, hierarchies and ladder as JSON, recorded with the
                         release so that kanon.audit_cell_fates can replay it (a record release:
                         its policy, chosen node, loss and suppression, see _records_policy)
                         (every long form)
      input_rows         the rows the release read: events with a person (counts, tables),
                         records (records); the gate compares it with the previous release's
                         (every long form)
      cells_passed, cells_generalized, cells_suppressed  finest cells by decision
      people_suppressed  distinct people of the suppressed events
      people_in          distinct people going in (only with max_suppression)
      events_null_unit   events whose privacy unit is NULL; text: the null_unit setting
      missing_values     per dimension (text: its name), distinct values missing from its
                         hierarchy (the materialization warns)
      records_in, records_suppressed  a record release's records going in and suppressed
      rows_compared, rows_changed_small, rows_held, rows_appeared, rows_disappeared
                         the release against the report's previous one (counts:
                         _counts_difference_facts; tables and records: _live_difference_facts);
                         rows_changed_small's text: the on_small_change setting
      key_fingerprint    text: a keyed hash of a constant under the pseudonym key (never the
                         key), for a record release that pseudonymizes, or a noisy release's key
      contributions_dropped        a dp count release's (person, cell) pairs beyond its bound
                                   on cells per person (dropped before counting)
      events_outside_cells         a dp count release's events (with a person) in no declared cell
    A kind may declare facts of its own besides these: the gate reads each under its own name
    and the trail records them (_release_own_facts). -#}
{% macro _long_form_facts(kind=none) %}
  {%- set facts = kanon._long_form_core_facts()[:4] -%}
  {%- set kinds = [kind] if kind is not none else [] -%}
  {%- if kind is none -%}
    {%- for name in kanon._release_kind_names() -%}
      {%- do kinds.append(kanon.get('_release_kind__' ~ name)()) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for each in kinds -%}
    {%- for fact in each.facts if fact not in facts -%}
      {%- do facts.append(fact) -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(facts) }}
{% endmacro %}

{#- The facts whose meaning the core defines (documented above, every long form's own four
    first), each read by the gate under a key of its own (_release_facts). -#}
{% macro _long_form_core_facts() %}
  {{ return(['privacy_unit', 'policy_fingerprint', 'release_plan', 'input_rows', 'cells_passed', 'cells_generalized',
      'cells_suppressed', 'people_suppressed', 'people_in', 'events_null_unit', 'missing_values', 'records_in',
      'records_suppressed', 'rows_compared', 'rows_changed_small', 'rows_held', 'rows_appeared', 'rows_disappeared',
      'key_fingerprint', 'contributions_dropped', 'events_outside_cells']) }}
{% endmacro %}

{#- The column marking a row's kind. -#}
{% macro _long_form_marker() %}
  {{ return('_kanon_row') }}
{% endmacro %}

{#- The long form's own columns after _kanon_row: [(name, type)]. -#}
{% macro _long_form_columns() %}
  {%- set columns = [] -%}
  {%- for name, type in kanon._audit_group_fields() -%}
    {%- do columns.append(('_kanon_' ~ name, type)) -%}
  {%- endfor -%}
  {%- do columns.extend([('_kanon_fact', dbt.type_string()), ('_kanon_value', dbt.type_bigint()),
                         ('_kanon_text', dbt.type_string()), ('_kanon_unit', dbt.type_string()),
                         ('_kanon_shuffle', dbt.type_string())]) -%}
  {{ return(columns) }}
{% endmacro %}

{#- `'<kind>' as _kanon_row, <the long form's columns>`: the long-form columns of one select,
    NULL unless given in `values` ({column name without _kanon_: SQL}); typed, so that every
    branch of a union agrees. -#}
{% macro _long_form_row(kind, values={}) %}
  {%- set given = values.keys() | list -%}
  {%- set known = [] -%}
  {%- for name, type in kanon._long_form_columns() -%}{%- do known.append(name[7:]) -%}{%- endfor -%}
  {%- for name in given if name not in known -%}
    {{ exceptions.raise_compiler_error("kanon: the long form has no column _kanon_" ~ name) }}
  {%- endfor -%}
  cast('{{ kanon._long_form_kind(kind) }}' as {{ dbt.type_string() }}) as {{ kanon._long_form_marker() }}
  {%- for name, type in kanon._long_form_columns() %},
  cast({{ values.get(name[7:], 'null') }} as {{ type }}) as {{ name }}
  {%- endfor %}
{%- endmacro %}

{#- A fact row of the long form: `select <released columns as NULL>, 'fact', ...`, its value
    and text SQL expressions, from `source` when given. -#}
{% macro _long_form_fact(null_columns, name, value='null', text='null', source=none) %}
  {%- do kanon._long_form_check_fact(name) -%}
select
  {{ null_columns }}
  {{ kanon._long_form_row('fact', {'fact': "'" ~ name ~ "'", 'value': value, 'text': text}) }}
{%- if source is not none %}
from {{ source }}
{%- endif %}
{%- endmacro %}

{#- The facts every long form closes with, written one way for every kind: the privacy unit's
    column, the policy's fingerprint and the release plan, as text (_sql_text quotes them as the
    warehouse reads them back: on Spark a backslash in a label is doubled too). -#}
{% macro _long_form_closing_facts(null_columns, privacy_unit, policy) -%}
{{ kanon._long_form_fact(null_columns, 'privacy_unit', text=kanon._sql_text(privacy_unit or '')) }}
union all
{{ kanon._long_form_fact(null_columns, 'policy_fingerprint', text=kanon._sql_text(policy.fingerprint)) }}
union all
{{ kanon._long_form_fact(null_columns, 'release_plan', text=kanon._sql_text(policy.plan)) }}
{%- endmacro %}

{#- Facts read from one source, each `union all` and its fact row: facts is [(name, value SQL)]
    or [(name, value SQL, text SQL)]. -#}
{% macro _long_form_facts_from(null_columns, source, facts) %}
  {%- for fact in facts %}
union all
{{ kanon._long_form_fact(null_columns, fact[0], fact[1], fact[2] if fact | length > 2 else 'null', source=source) }}
  {%- endfor %}
{%- endmacro %}

{#- `_kanon_row = '<kind>'`: the condition selecting one kind of row. -#}
{% macro _long_form_is(kind) %}
  {{ return(kanon._long_form_marker() ~ " = '" ~ kanon._long_form_kind(kind) ~ "'") }}
{% endmacro %}

{#- `_kanon_row = 'fact' and _kanon_fact = '<name>'`. -#}
{% macro _long_form_is_fact(name) %}
  {%- do kanon._long_form_check_fact(name) -%}
  {{ return(kanon._long_form_is('fact') ~ " and _kanon_fact = '" ~ name ~ "'") }}
{% endmacro %}

{% macro _long_form_kind(kind) %}
  {%- if kind not in kanon._long_form_kinds() -%}
    {{ exceptions.raise_compiler_error("kanon: no long-form row kind '" ~ kind ~ "'") }}
  {%- endif -%}
  {{ return(kind) }}
{% endmacro %}

{#- Raises unless `name` is a fact the model's release kind declares (config kanon_release_kind,
    set at parse time), or any kind's when it has none: a fact the kind did not declare would
    never be read by the gate. -#}
{% macro _long_form_check_fact(name) %}
  {%- set kind_name = config.get('kanon_release_kind') -%}
  {%- set descriptor = kanon.get('_release_kind__' ~ kind_name) if kind_name is string else none -%}
  {%- set known = kanon._long_form_facts(descriptor() if descriptor is not none else none) -%}
  {%- if name not in known -%}
    {{ exceptions.raise_compiler_error("kanon: no long-form fact '" ~ name ~ "'"
        ~ (" declared by release kind '" ~ kind_name ~ "'" if descriptor is not none else "")) }}
  {%- endif -%}
{% endmacro %}
