{#-
  The kinds of release the k_anonymous materialization publishes, and what each hands it. A
  release macro says its kind in the model's config at parse time (config kanon_release_kind);
  a model without one is a hand-written aggregate. The materialization reads the kind, not the
  staged columns, and refuses a staged release that does not match it.

    long_form  the model's SQL is a long form (macros/release/_long_form.sql): published rows,
               groups and facts marked by _kanon_row; else its rows are the published rows
    checks     the gate's named checks for the kind, in order (see _release_checks)
    count      whether its published rows carry a count of people (config count_column)
    budget     whether config max_suppression applies to it
    order_by   the long-form column its rows are published in the order of, if any
    called     what the user called, for messages
-#}
{% macro _release_kinds() %}
  {{ return({
      'hand_written': {'long_form': false, 'checks': ['input_empty', 'input_shrink', 'min_count'], 'count': true, 'budget': false,
                       'order_by': none, 'called': "the model's own SQL"},
      'counts': {'long_form': true, 'checks': ['input_empty', 'input_shrink', 'min_count', 'null_unit', 'suppression_budget',
                 'small_change'], 'count': true, 'budget': true, 'order_by': none, 'called': 'kanon.release_counts'},
      'records': {'long_form': true, 'checks': ['input_empty', 'input_shrink', 'records_search', 'records_recount', 'records_budget',
                  'small_change'], 'count': false, 'budget': true, 'order_by': '_kanon_shuffle', 'called': 'kanon.release_records'},
      'table': {'long_form': true, 'checks': ['input_empty', 'input_shrink', 'table_search', 'null_unit', 'table_recount',
                'table_line_rule', 'no_exact_disclosure', 'small_change'], 'count': false, 'budget': false, 'order_by': none,
                'called': 'kanon.release_table'},
  }) }}
{% endmacro %}

{#- The release kind of the model being materialized, checked against what was staged. -#}
{% macro _release_kind(name, staged_columns) %}
  {%- set who = "kanon: " ~ model.unique_id -%}
  {%- set kinds = kanon._release_kinds() -%}
  {%- if name not in kinds -%}
    {{ exceptions.raise_compiler_error(who ~ ": unknown release kind '" ~ name ~ "' in config kanon_release_kind (known: "
        ~ (kinds.keys() | sort | join(', ')) ~ "); it is set by kanon's release macros, not by hand") }}
  {%- endif -%}
  {%- set kind = kinds[name] -%}
  {%- set marked = kanon._long_form_marker() in (staged_columns | map('lower') | list) -%}
  {%- if marked != kind.long_form -%}
    {{ exceptions.raise_compiler_error(who ~ " is configured as a '" ~ name ~ "' release but its SQL "
        ~ ("does not carry the long form of " ~ kind.called if kind.long_form else "has a column " ~ kanon._long_form_marker()
           ~ ", which kanon reserves for the long form of its release macros")
        ~ ". Nothing was published.") }}
  {%- endif -%}
  {{ return(dict(kind, name=name)) }}
{% endmacro %}
