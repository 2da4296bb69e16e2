{#-
  The release engine as SQL: the CTEs shared by a released mart, its audit and release_decisions,
  in the order they run. Each piece is its own macro in this folder; this one only names what
  every piece needs (_counts_names) and strings them together. The events are grouped once, as
  the bare aggregate groups them, every label is looked up once per raw cell (not per event),
  and the events are read once more for the thin cells only, streamed into the first recount.

    1. _counts_events_cte      _k_events: who (the privacy unit) and each dimension's value
    2. _counts_finest_ctes     the bare aggregate, the hierarchy lookups, step 0's groups
                                (_k_groups_0: the finest cells)
    3. _counts_ladder_ctes     for each step S >= 1, the events of the finest cells still thin
                                (_k_rest_S), regrouped at step S's levels and recounted
                                (_k_groups_S); and which finest cells stay thin (_k_thin_S)
    4. _counts_outcome_ctes    _k_released (the groups that reached k, with their step) and,
                                for release_decisions, _k_fates (every finest cell's fate)

  Naming: dimension i's raw value is _k_d<i>_value; its label and level at hierarchy level L are
  _k_d<i>_label<L> and _k_d<i>_level<L>; a group's people (or rows) _k_count, its measures
  _k_measure<j>, and with a dominance rule _k_dominated. Every group count goes through
  _counts_groups and every "is this group thin" through _counts_is_thin: a group is thin
  below k people, or when dominated.

  Whether a CTE is materialized is said explicitly (engines guess differently): what is read
  several times and costly to recompute is materialized; cheap filters and joins are inlined.

  with_released   the released groups (_k_released)
  with_fates      every finest cell's fate (_k_fates), and the thin cells followed to the last step
  with_rest       the events suppressed after the last step (_k_rest_<steps>): for the remainder
                  row and the audit's count of people suppressed
  with_thin       follow the thin finest cells to the last step (_k_thin_S for every S): for the
                  audit's count of cells by decision
-#}
{% macro _counts_ctes(plan, with_released=true, with_fates=false, with_rest=false, with_thin=false) %}
  {%- set names = kanon._counts_names(plan) -%}
  {%- set last = names.last -%}
  {#- how far the finest cells still thin are followed: to the last step for the audit and the
      fates, else only as far as step 2's events need (-1: not at all) -#}
  {%- set thin_through = last if (with_fates or with_thin)
      else (1 if last >= 2 or (last == 1 and with_rest) else -1) -%}
  {%- set pieces = [
      kanon._counts_events_cte(plan),
      kanon._noise_ctes(plan.noise, '_k_events') if plan.noise is not none else '',
      kanon._counts_finest_ctes(plan, names),
      kanon._counts_ladder_ctes(plan, names, thin_through, with_rest),
      kanon._counts_outcome_ctes(plan, names, with_released, with_fates),
  ] -%}
  {{ pieces | map('trim') | select | join(',\n  ') }}
{%- endmacro %}

{#- The column names the pieces share, computed once per plan:
      last          the last step's number
      needed[i]     the hierarchy levels dimension i takes at some step, ascending
      raw_keys      the raw values' columns, one per dimension (the bare aggregate's keys)
      label_columns every (label, level) column of every needed level: a finest cell's labels
      step_keys[S]  the (label, level) columns of step S: the keys its groups are formed on
      carried       what a group carries besides its keys and _k_count (measures, dominance,
                    the cell key of a noisy release)
      event_columns what the events carry up the ladder (the person; every column with measures) -#}
{% macro _counts_names(plan) %}
  {%- set dim_range = range(plan.dims | length) -%}
  {%- set needed = [] -%}
  {%- set raw_keys = [] -%}
  {%- set label_columns = [] -%}
  {%- for i in dim_range -%}
    {%- do needed.append(plan.steps | map(attribute=i) | unique | sort | list) -%}
    {%- do raw_keys.append('_k_d' ~ i ~ '_value') -%}
    {%- for level in needed[i] -%}
      {%- do label_columns.extend(kanon._counts_label_level(i, level)) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set step_keys = [] -%}
  {%- for levels in plan.steps -%}
    {%- set keys = [] -%}
    {%- for i in dim_range -%}{%- do keys.extend(kanon._counts_label_level(i, levels[i])) -%}{%- endfor -%}
    {%- do step_keys.append(keys) -%}
  {%- endfor -%}
  {%- set carried = [] -%}
  {%- for name in plan.measures -%}{%- do carried.append('_k_measure' ~ loop.index0) -%}{%- endfor -%}
  {%- if plan.dominance is not none -%}{%- do carried.append('_k_dominated') -%}{%- endif -%}
  {%- if plan.noise is not none -%}{%- do carried.append('_k_cell_key') -%}{%- endif -%}
  {{ return({
      'last': plan.steps | length - 1,
      'needed': needed,
      'raw_keys': raw_keys,
      'label_columns': label_columns,
      'step_keys': step_keys,
      'carried': carried,
      'event_columns': '_k_event.*' if (plan.measures or plan.dominance is not none) else '_k_event._k_person',
  }) }}
{% endmacro %}

{#- [label column, level column] of dimension i at hierarchy level L. -#}
{% macro _counts_label_level(i, level) %}
  {{ return(['_k_d' ~ i ~ '_label' ~ level, '_k_d' ~ i ~ '_level' ~ level]) }}
{% endmacro %}
