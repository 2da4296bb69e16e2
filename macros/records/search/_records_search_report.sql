{#-
  Phase 4 of the record search (_records_search): report. The chosen node (by height: the lowest
  satisfying node, evaluated in full, since it was inferred or evaluated lean; else the least
  loss, ties to the least height, then the smallest levels in the order the columns come), its
  figures by fate
  (_records_node_details), and for each quasi-identifier how many suppressed records one more
  step on it would rescue (_records_rescue). No node satisfying the model within the budget
  refuses the release, reported from the most general node (_records_refusal).

  reads   the lattice (`lattice`), the nodes evaluated (`evals`), the class table (`classes`)
  writes  nothing kept: evaluates the chosen node (by height) or the most general node, then
          drops every scratch table of the search
  returns the search's state (less the phases' own) with node, details, rescue, refused,
          nodes_evaluated, search_seconds and scan_seconds
-#}
{% macro _records_search_report(plan, search) %}
  {%- set t = search.tables -%}
  {%- if plan.loss == 'height' -%}
    {%- set chosen = run_query('select _k_node, _k_evaluated from ' ~ t.lattice
        ~ " where _k_state = 'pass' order by _k_height, "
        ~ (kanon._records_levels(plan) | join(', ')) ~ ' limit 1').rows -%}
    {#- evaluated in full: inferred, or evaluated lean (classify keeps only its height) -#}
    {%- if chosen -%}
      {%- do kanon._scratch_delete(t.evals, '_k_node = ' ~ chosen[0][0]) -%}
      {%- do kanon._records_search_batch(plan, search, '_k_node = ' ~ chosen[0][0], at_most=1) -%}
    {%- endif -%}
  {%- endif -%}
  {%- set evaluated = kanon._search_value('select count(*) from ' ~ t.evals) | int -%}
  {%- set best = kanon._records_node_row(search, 'select * from ' ~ t.evals ~ ' where _k_passes = 1 order by '
      ~ kanon._records_search_order(plan) ~ ' limit 1') -%}
  {%- set refused = none -%}
  {%- if best is none -%}
    {#- nothing satisfies the model: say how far the most general node is from it -#}
    {%- set top_sql = 'select * from ' ~ t.evals ~ ' where _k_height = ' ~ plan.max_height -%}
    {%- set top = kanon._records_node_row(search, top_sql) -%}
    {%- if top is none -%}
      {%- do kanon._records_search_batch(plan, search, '_k_height = ' ~ plan.max_height) -%}
      {%- set top = kanon._records_node_row(search, top_sql) -%}
    {%- endif -%}
    {%- set refused = kanon._records_refusal(plan, search, top) -%}
    {%- set best = top -%}
  {%- endif -%}
  {%- set details = kanon._records_node_details(plan, search, best) -%}
  {%- set rescue = [] if refused is not none else kanon._records_rescue(plan, search, best) -%}
  {%- do kanon._records_drop_temporary(t) -%}
  {%- set session = search.session -%}
  {%- do kanon._records_search_restore(session.restore) -%}
  {{ return(dict(kanon._records_search_state(search), node=best, details=details, rescue=rescue, refused=refused,
      nodes_evaluated=evaluated, search_seconds=kanon._search_seconds(session.searching),
      scan_seconds=kanon._search_seconds(session.started, session.searching))) }}
{% endmacro %}

{#- The result of a search of no records: the finest node, with nothing suppressed (nothing to
    generalize), and no scratch table left. -#}
{% macro _records_search_nothing(plan, search) %}
  {%- do kanon._records_drop_temporary(search.tables) -%}
  {%- do kanon._records_search_restore(search.session.restore) -%}
  {%- set node = {'_k_node': 0, '_k_height': 0, '_k_suppressed_records': 0, '_k_missing_records': 0,
      '_k_loss_height': 0, '_k_loss_discernibility': 0, '_k_loss_non_uniform_entropy': 0} -%}
  {%- for qi in plan.qis -%}{%- do node.update({'_k_l' ~ qi.index: 0}) -%}{%- endfor -%}
  {%- set empty = {'classes': 0, 'records': 0, 'people': 0} -%}
  {{ return(dict(kanon._records_search_state(search), node=node,
      details={'kept': empty, 'too_small': empty, 'not_diverse': empty, 'missing': empty},
      rescue=[], refused=none, nodes_evaluated=0, search_seconds=0, scan_seconds=0)) }}
{% endmacro %}

{#- The search's state as the release reads it: without the phases' own (session, progress). -#}
{% macro _records_search_state(search) %}
  {%- set state = dict(search) -%}
  {%- do state.pop('session') -%}
  {%- do state.pop('progress') -%}
  {{ return(state) }}
{% endmacro %}

{#- The chosen node's classes, records and people by fate (kept, too_small, not_diverse,
    missing): {fate: {classes, records, people}}. -#}
{% macro _records_node_details(plan, search, node) %}
  {%- set keys = kanon._records_node_keys(plan, search) -%}
  {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ' from ' ~ search.tables.lattice
      ~ ' where _k_node = ' ~ node._k_node -%}
  {%- set sql -%}
    {{ kanon._records_at_ctes(plan, search, batch_sql, keys) }}
    _k_fates as (
      select _k_fate, count(*) as _k_classes, sum(_k_records) as _k_records from _k_judged group by _k_fate
    ),
    _k_people as (
      select _k_judged._k_fate, {{ 'count(distinct _k_at._k_person)' if plan.privacy_unit is not none
          else 'sum(_k_at._k_n)' }} as _k_people
      from _k_at
      inner join _k_judged on
        {%- for key in keys %} {% if not loop.first %}and {% endif %}_k_judged.{{ key }} = _k_at.{{ key }}{%- endfor %}
      group by _k_judged._k_fate
    )
    select _k_fates._k_fate, _k_fates._k_classes, _k_fates._k_records, _k_people._k_people
    from _k_fates
    inner join _k_people on _k_people._k_fate = _k_fates._k_fate
  {%- endset -%}
  {%- set details = {} -%}
  {%- for fate in ['kept', 'too_small', 'not_diverse', 'missing'] -%}
    {%- do details.update({fate: {'classes': 0, 'records': 0, 'people': 0}}) -%}
  {%- endfor -%}
  {%- for row in run_query(sql).rows -%}
    {%- do details.update({row[0]: {'classes': row[1] | int, 'records': row[2] | int, 'people': row[3] | int}}) -%}
  {%- endfor -%}
  {{ return(details) }}
{% endmacro %}


{#- For each quasi-identifier below its top level: how many of the node's suppressed records one
    more step on it alone would keep. [{column, records}], largest first. -#}
{% macro _records_rescue(plan, search, node) %}
  {%- set levels = kanon._records_node_levels(plan, node) -%}
  {%- set steps = [] -%}
  {%- for qi in plan.qis if levels[qi.index] < qi.depth -%}
    {%- set up = levels | list -%}
    {%- do up.pop(qi.index) -%}
    {%- do up.insert(qi.index, levels[qi.index] + 1) -%}
    {%- do steps.append((qi.name, up)) -%}
  {%- endfor -%}
  {%- if not steps or (node._k_suppressed_records | int) == 0 -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set conditions = [] -%}
  {%- for name, up in steps -%}{%- do conditions.append(kanon._records_node_condition(plan, up)) -%}{%- endfor -%}
  {%- set batch_sql = 'select ' ~ kanon._records_batch_columns(plan, search) ~ ', 0 as _k_batch from '
      ~ search.tables.lattice ~ ' where ' ~ (conditions | join(' or ')) -%}
  {%- set result = run_query(kanon._records_evaluate_sql(plan, search, batch_sql)) -%}
  {%- set by_levels = {} -%}
  {%- for row in result.rows -%}
    {%- set levels_of = [] -%}
    {%- for qi in plan.qis -%}{%- do levels_of.append(row[result.column_names.index('_k_l' ~ qi.index)] | int) -%}
    {%- endfor -%}
    {%- do by_levels.update({levels_of | join(','): row[result.column_names.index('_k_suppressed_records')] | int}) -%}
  {%- endfor -%}
  {%- set rescue = [] -%}
  {%- for name, up in steps -%}
    {%- do rescue.append({'column': name,
        'records': (node._k_suppressed_records | int) - by_levels.get(up | join(','),
            node._k_suppressed_records | int)}) -%}
  {%- endfor -%}
  {{ return(rescue | sort(attribute='records', reverse=true)) }}
{% endmacro %}


{#- Why no node satisfies the model, from the most general node: {check, reason}. Counts only. -#}
{% macro _records_refusal(plan, search, top) %}
  {%- set budget = search.limit ~ ' ' ~ plan.suppression_unit ~ ' (max_suppression=' ~ plan.max_suppression ~ ')' -%}
  {%- set missing = top._k_missing_records | int -%}
  {%- set small = top._k_too_small_records | int -%}
  {%- set thin = top._k_not_diverse_records | int -%}
  {%- if missing > search.limit -%}
    {%- set check = 'missing_values' -%}
    {%- set reason = missing ~ " record(s) are suppressed up front (a NULL privacy unit"
        ~ (", or a missing quasi-identifier under missing_value_policy='suppress'"
           if plan.missing_value_policy == 'suppress' else '')
        ~ "), more than the suppression budget of " ~ budget -%}
  {%- elif small + missing > search.limit or plan.l is none -%}
    {%- set check = 'too_small' -%}
    {%- set reason = "no generalization reaches k=" ~ plan.k ~ " within the suppression budget of " ~ budget
        ~ ": even the most general node leaves "
        ~ small ~ " record(s) in " ~ top._k_classes_too_small ~ " class(es) below k"
        ~ ((" and " ~ missing ~ " suppressed up front") if missing else '') -%}
  {%- else -%}
    {%- set check = 'not_diverse' -%}
    {%- set reason = "no generalization reaches l=" ~ plan.l ~ " (" ~ plan.diversity
        ~ " l-diversity) within the suppression budget of " ~ budget
        ~ ": even the most general node leaves " ~ thin ~ " record(s) in " ~ top._k_classes_not_diverse
        ~ " class(es) that are not " ~ plan.l ~ "-diverse"
        ~ ((" and " ~ small ~ " below k") if small else '') -%}
  {%- endif -%}
  {{ return({'check': check, 'reason': reason}) }}
{% endmacro %}
