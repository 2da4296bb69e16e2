{#-
  The long form: what a release_counts model hands the k_anonymous materialization. One
  statement yields the published rows and the audit of the release together, each row marked in
  the column _kanon_row with its kind; the materialization publishes the 'release' rows and
  writes the rest to the private audit trail, in one transaction. The kinds, defined here once:

    release     a published row (the released columns; audit columns NULL)
    cell        one finest cell's fate: _kanon_cell_labels, _kanon_people, _kanon_decision,
                _kanon_ladder_step, _kanon_released_* (the audit trail's cell columns)
    suppressed  _kanon_people: distinct people of the suppressed events
    missing     per dimension (_kanon_cell_labels), _kanon_people: distinct values missing from
                its hierarchy (the materialization warns)
    null_unit   _kanon_people: events whose privacy unit is NULL; _kanon_decision: null_unit;
                _kanon_cell_labels: the privacy unit's column
    people_in   _kanon_people: distinct people going in (only with max_suppression)
    policy      _kanon_cell_labels: the policy fingerprint (one constant row), read by the
                materialization with the gate's facts and recorded with the release
-#}
{% macro _long_form_kinds() %}
  {{ return(['release', 'cell', 'suppressed', 'missing', 'null_unit', 'people_in', 'policy']) }}
{% endmacro %}

{#- The column marking a row's kind; its presence tells a release_counts model from a hand-written one. -#}
{% macro _long_form_marker() %}
  {{ return('_kanon_row') }}
{% endmacro %}

{#- `'<kind>' as _kanon_row`, typed when `typed` (the first branch of a union fixes the type). -#}
{% macro _long_form_tag(kind, typed=false) %}
  {%- set literal = "'" ~ kanon._long_form_kind(kind) ~ "'" -%}
  {{ return(('cast(' ~ literal ~ ' as ' ~ dbt.type_string() ~ ')' if typed else literal) ~ ' as ' ~ kanon._long_form_marker()) }}
{% endmacro %}

{#- `_kanon_row = '<kind>'`: the condition selecting one kind of row. -#}
{% macro _long_form_is(kind) %}
  {{ return(kanon._long_form_marker() ~ " = '" ~ kanon._long_form_kind(kind) ~ "'") }}
{% endmacro %}

{% macro _long_form_kind(kind) %}
  {%- if kind not in kanon._long_form_kinds() -%}
    {{ exceptions.raise_compiler_error("kanon: no long-form row kind '" ~ kind ~ "'") }}
  {%- endif -%}
  {{ return(kind) }}
{% endmacro %}
