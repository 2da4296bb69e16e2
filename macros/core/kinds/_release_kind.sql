{#-
  The kinds of release the k_anonymous materialization publishes. A kind is a descriptor: a macro
  named _release_kind__<name> in the kind's own folder, returning what the core needs to know of
  it. The materialization looks the descriptor up by the name the model's config gives at parse
  time (config kanon_release_kind, set by the kind's release macro; a model without one is
  hand-written), as dbt looks up an incremental strategy by name, and refuses a staged release
  that does not match it, or a config the kind cannot honour (max_suppression without a budget).
  A new kind is a new folder with its descriptor, its release macro and its checks
  (_gate_check__<name>): nothing in the core names a kind.

  A descriptor returns:
    called     what the user called, for messages
    long_form  the model's SQL is a long form (macros/core/long_form/_long_form.sql): published
               rows, groups and facts marked by _kanon_row; else its rows are the published rows
    facts      the long-form facts it states besides every long form's own (_long_form_facts):
               the core's, and any of its own, which the gate reads under their own names and
               the trail records (_release_own_facts)
    checks     the gate's named checks for the kind, in order (_release_checks)
    count      whether its published rows carry a count of people (config count_column)
    budget     whether config max_suppression applies to it
    rate_of    what its suppression rate is a share of: 'cells' (cells suppressed of cells in)
               or 'budget_unit' (records, or people, as its suppression budget counts them)
    order_by   the long-form column its rows are published in the order of, if any
    learns     (optional, default false) its release macro learns figures from the data while
               the model compiles and keeps them off the SQL (_release_learned); the release
               is refused when they are not found
    shown      (optional) the fact counting what a reader is shown of the release (check
               output_empty): rows_published unless given; a table, whose published rows
               include its hidden cells, gives cells_passed
    wording    (optional) how the core's messages speak of the kind, each entry defaulting as
               _release_kind_wording says
    warnings   (optional) warnings of its own after the core's, in order: each a macro
               _gate_warning__<name>(gate), found by name as the checks are, returning a message
               or a list of them (or '' or [] for none); `gate` as the checks get it
    report     (optional) what the reviewers' report shows of its releases (kanon.cli_report,
               kanon_tools.report): heading (its section's title, where kanon_tools registers no
               section for the kind), facts (its own facts its section shows, [[name, label]]:
               counts the kind vouches may be shown), sizes (how its released cells' sizes are
               counted: 'trail_groups', 'published_cells' or 'classes', _cli_report_sizes), grid
               (true: the report reads the grid its model publishes now)
-#}
{% macro _release_kind(name, staged_columns, max_suppression=none) %}
  {%- set who = "kanon: " ~ model.unique_id -%}
  {%- set kind = kanon._release_kind_descriptor(name) -%}
  {%- set marked = kanon._long_form_marker() in (staged_columns | map('lower') | list) -%}
  {%- if marked != kind.long_form -%}
    {{ exceptions.raise_compiler_error(who ~ " is configured as a '" ~ name ~ "' release but its SQL "
        ~ ("does not carry the long form of " ~ kind.called if kind.long_form
           else "has a column " ~ kanon._long_form_marker()
                ~ ", which kanon reserves for the long form of its release macros")
        ~ ". Nothing was published.") }}
  {%- endif -%}
  {%- if max_suppression is not none and not kind.budget -%}
    {%- set budgets = [] -%}
    {%- for each in kanon._release_kind_names() if kanon._release_kind_descriptor(each).budget -%}
      {%- do budgets.append(kanon._release_kind_descriptor(each).called) -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error(who ~ ": max_suppression needs a " ~ budgets | join(' or ')
        ~ " model (a release that says how many people it left out; " ~ kind.called
        ~ " does not); remove it from the config") }}
  {%- endif -%}
  {{ return(dict(kind, name=name)) }}
{% endmacro %}

{#- The descriptor of the kind `name` (a dict), or a compiler error naming the known kinds. -#}
{% macro _release_kind_descriptor(name) %}
  {%- set descriptor = kanon.get('_release_kind__' ~ name) if name is string else none -%}
  {%- if descriptor is none -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ ": unknown release kind '" ~ name
        ~ "' in config kanon_release_kind (known: " ~ (kanon._release_kind_names() | join(', '))
        ~ "); it is set by kanon's release macros, not by hand") }}
  {%- endif -%}
  {{ return(descriptor()) }}
{% endmacro %}

{#- The names of every release kind kanon defines (its _release_kind__<name> macros), sorted. -#}
{% macro _release_kind_names() %}
  {%- set names = [] -%}
  {%- for macro_name in kanon.keys() if macro_name.startswith('_release_kind__') -%}
    {%- do names.append(macro_name[15:]) -%}
  {%- endfor -%}
  {{ return(names | sort) }}
{% endmacro %}

{#- How the core's messages speak of `kind` (a descriptor with its name): its `wording` over these
    defaults, so that a kind without any still reads well.
      release              a release of the kind, as in "carries no <release> plan" (_gate_plan):
                           '<name> release'
      rows                 its published rows, counted (warning of small changes): 'row(s)'
      changed_by           what a row's change is counted in ('people'), or '' for nothing
      small_change_advice  what to do about small changes when none was held
      key                  the key its key_fingerprint fact is of: 'key'
      key_changed          what a new key did to the release, after "the <key> changed ...: " -#}
{% macro _release_kind_wording(kind) %}
  {%- set wording = {'release': kind.name ~ ' release', 'rows': 'row(s)', 'changed_by': '',
      'small_change_advice': "Release less often, or with on_small_change='refuse' to keep the previous release"
                             ~ " until such changes are gone.",
      'key': 'key', 'key_changed': "every value derived from the key differs from the previous release's"} -%}
  {%- do wording.update(kind.get('wording') or {}) -%}
  {{ return(wording) }}
{% endmacro %}
