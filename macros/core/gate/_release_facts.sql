{#- The staged column the gate checks: the count column as the warehouse resolves its name. It
    must hold numbers: text or booleans compared with k would fail on a raw database error. -#}
{% macro _release_count_column(staged, count_column) %}
  {%- set who = "kanon: " ~ model.unique_id -%}
  {%- set names = staged | map(attribute='name') | list -%}
  {%- set ns = namespace(found=none) -%}
  {%- for column in staged if column.name == count_column
        or (count_column not in names and column.name | lower == count_column | lower) -%}
    {%- set ns.found = column -%}
  {%- endfor -%}
  {%- if ns.found is none -%}
    {{ exceptions.raise_compiler_error(who ~ " has no column '" ~ count_column ~ "' to check against k; "
        ~ "set config count_column to the column holding each row's people count") }}
  {%- endif -%}
  {%- set dtype = ns.found.dtype | lower -%}
  {%- if ns.found.is_string() or 'bool' in dtype or 'date' in dtype or 'time' in dtype -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column '" ~ ns.found.name ~ "' is of type " ~ ns.found.dtype
        ~ "; the gate compares it with k, so it must be a number of people (cast it to an integer)") }}
  {%- endif -%}
  {{ return(ns.found.name) }}
{% endmacro %}

{#- What the gate and the release's summary row need to know about a staged release, in one scan
    of the staging table: published rows, those below k (or NULL, NaN, infinite: a count must be
    a finite number of at least k, _count_below_k), and
    from a long form every fact it states (_long_form_facts); in the same query, from the trail,
    the report's previous release's input rows and key fingerprint. Also the count column as
    resolved. The core's facts under the keys below, with their defaults; the kind's own facts
    under their own names (_release_own_facts). -#}
{% macro _release_facts(staging, staged, count_column, k, kind, audit_releases) %}
  {%- set long_form = kind.long_form -%}
  {#- a release without a count column (records) has no row to compare with k: its gate recounts -#}
  {%- set count_name = kanon._release_count_column(staged, count_column) if count_column is not none else none -%}
  {%- set count = kanon._quote(count_name) if count_name is not none else 'null' -%}
  {%- set published = kanon._long_form_is('release') if long_form else '1 = 1' -%}
  {%- set facts = kanon._long_form_facts(kind) if long_form else [] -%}
  {%- set facts_sql -%}
    select
      coalesce(sum(case when {{ published }} then 1 else 0 end), 0),
      {%- if count_name is not none %}
      coalesce(sum(case when {{ published }} and {{ kanon._count_below_k(count, k) }} then 1 else 0 end), 0)
      {%- else %}
      0
      {%- endif %}
      {%- for column in ['input_rows', 'key_fingerprint'] %},
      (select max(_k_previous.{{ column }}) from {{ audit_releases }} as _k_previous
       where {{ kanon._audit_is_previous_release('_k_previous', audit_releases) }})
      {%- endfor %}
      {%- for fact in facts %},
      max(case when {{ kanon._long_form_is_fact(fact) }} then _kanon_value end),
      max(case when {{ kanon._long_form_is_fact(fact) }} then _kanon_text end)
      {%- endfor %}
    from {{ staging }}
  {%- endset -%}
  {%- set row = run_query(facts_sql).rows[0] -%}
  {%- set stated = {} -%}
  {%- for fact in facts -%}
    {%- do stated.update({fact: {'value': row[4 + 2 * loop.index0], 'text': row[5 + 2 * loop.index0]}}) -%}
  {%- endfor -%}
  {%- set value = kanon._release_fact_value -%}
  {#- a hand-written aggregate's published rows are its cells, each released as it is -#}
  {%- set published = row[0] | int -%}
  {%- set result = {
      'count_column': count_name,
      'rows_published': published,
      'below_k': row[1] | int,
      'cells_passed': value(stated, 'cells_passed', published),
      'cells_generalized': value(stated, 'cells_generalized', 0),
      'cells_suppressed': value(stated, 'cells_suppressed', 0),
      'people_suppressed': value(stated, 'people_suppressed', 0),
      'people_in': value(stated, 'people_in', none),
      'events_null_unit': value(stated, 'events_null_unit', 0),
      'null_unit': stated.get('events_null_unit', {}).get('text'),
      'privacy_unit': stated.get('privacy_unit', {}).get('text'),
      'policy_fingerprint': stated.get('policy_fingerprint', {}).get('text'),
      'release_plan': stated.get('release_plan', {}).get('text'),
      'records_in': value(stated, 'records_in', none),
      'records_suppressed': value(stated, 'records_suppressed', 0),
      'rows_compared': value(stated, 'rows_compared', none),
      'rows_changed_small': value(stated, 'rows_changed_small', none),
      'rows_held': value(stated, 'rows_held', none),
      'rows_appeared': value(stated, 'rows_appeared', none),
      'rows_disappeared': value(stated, 'rows_disappeared', none),
      'on_small_change': stated.get('rows_changed_small', {}).get('text'),
      'input_rows': value(stated, 'input_rows', published),
      'key_fingerprint': stated.get('key_fingerprint', {}).get('text'),
      'contributions_dropped': value(stated, 'contributions_dropped', none),
      'events_outside_cells': value(stated, 'events_outside_cells', none),
      'previous_input_rows': (row[2] | int) if row[2] is not none else none,
      'previous_key_fingerprint': row[3],
  } -%}
  {%- do result.update({'cells_in': result.cells_passed + result.cells_generalized + result.cells_suppressed}) -%}
  {%- do result.update(kanon._release_own_facts(kind, stated, result)) -%}
  {{ return(result) }}
{% endmacro %}

{#- The facts a kind declares that the core gives no meaning of its own (_long_form_core_facts),
    each under its own name as the long form states it, {value, text} (a number or none, a text
    or none), and all of them together as kind_facts, which the summary row records
    (kanon_audit_releases.kind_facts) for the kind's report section: a new kind's fact reaches
    its checks, warnings and report with no edit to the core. A fact stated on several rows
    reads as the largest value and text. A fact named like a figure the gate computes itself
    is refused: it would hide that figure. -#}
{% macro _release_own_facts(kind, stated, computed) %}
  {%- set own = {} -%}
  {%- set core = kanon._long_form_core_facts() -%}
  {%- for fact in kind.facts if fact not in core -%}
    {%- if fact in computed or fact in ['kind_facts', 'suppression_rate'] -%}
      {{ exceptions.raise_compiler_error("kanon: release kind '" ~ kind.name ~ "' declares a fact '" ~ fact
          ~ "', the name of a figure the gate computes itself; give the fact another name") }}
    {%- endif -%}
    {%- set found = stated.get(fact, {}) -%}
    {%- set value = found.get('value') -%}
    {%- do own.update({fact: {'value': (value | int) if value is not none else none, 'text': found.get('text')}}) -%}
  {%- endfor -%}
  {{ return(dict(own, kind_facts=own)) }}
{% endmacro %}

{#- kanon_audit_releases.suppression_rate: the share of what the kind's rate is of (rate_of,
    _release_kind) that was suppressed. 'budget_unit' (records): the share of its budget's unit
    suppressed (records, or people with suppression_unit='people'), as the budget is checked;
    'cells' (the others): the share of cells suppressed (counts: finest cells; tables: cells and
    totals hidden; hand-written: 0). -#}
{% macro _release_suppression_rate(kind, facts) %}
  {%- if kind.rate_of == 'budget_unit' -%}
    {%- set people = (fromjson(facts.release_plan or '{}').get('budget') or {}).get('unit') == 'people' -%}
    {%- set total = facts.people_in if people else facts.records_in -%}
    {%- set suppressed = facts.people_suppressed if people else facts.records_suppressed -%}
    {{ return((suppressed / total) if total else 0) }}
  {%- endif -%}
  {{ return((facts.cells_suppressed / facts.cells_in) if facts.cells_in > 0 else 0) }}
{% endmacro %}

{#- A fact's number, or `default` when the long form did not state it. -#}
{% macro _release_fact_value(stated, fact, default) %}
  {%- set found = stated.get(fact, {}).get('value') -%}
  {{ return((found | int) if found is not none else default) }}
{% endmacro %}
