{#-
  The checks the k_anonymous materialization makes before it publishes: its config at compile
  time, then the release's facts, read from the staging table in one query.
-#}

{#- Compile-time checks of the k_anonymous materialization's config. -#}
{% macro _check_release_config(k, count_column, max_suppression) %}
  {%- set who = "kanon: " ~ model.unique_id ~ " (materialized k_anonymous)" -%}
  {%- do kanon._check_k(k, who) -%}
  {%- do kanon._check_share(config.get('max_input_shrink', 0.5), 'max_input_shrink', who) -%}
  {%- do kanon._check_boolean(config.get('allow_empty_input', false), 'allow_empty_input', who) -%}
  {%- if count_column is not string or count_column | trim == '' -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column must be a column name") }}
  {%- endif -%}
  {%- if max_suppression is not none -%}
    {%- do kanon._check_share(max_suppression, 'max_suppression', who) -%}
  {%- endif -%}
{% endmacro %}

{#- The staged column the gate checks: the count column as the warehouse resolves its name. It
    must hold numbers: text or booleans compared with k would fail on a raw database error. -#}
{% macro _release_count_column(staged, count_column) %}
  {%- set who = "kanon: " ~ model.unique_id -%}
  {%- set names = staged | map(attribute='name') | list -%}
  {%- set ns = namespace(found=none) -%}
  {%- for column in staged if column.name == count_column or (count_column not in names and column.name | lower == count_column | lower) -%}
    {%- set ns.found = column -%}
  {%- endfor -%}
  {%- if ns.found is none -%}
    {{ exceptions.raise_compiler_error(who ~ " has no column '" ~ count_column ~ "' to check against k; "
        ~ "set config count_column to the column holding each row's people count") }}
  {%- endif -%}
  {%- if ns.found.is_string() or 'bool' in (ns.found.dtype | lower) or 'date' in (ns.found.dtype | lower) or 'time' in (ns.found.dtype | lower) -%}
    {{ exceptions.raise_compiler_error(who ~ ": count_column '" ~ ns.found.name ~ "' is of type " ~ ns.found.dtype
        ~ "; the gate compares it with k, so it must be a number of people (cast it to an integer)") }}
  {%- endif -%}
  {{ return(ns.found.name) }}
{% endmacro %}

{#- What the gate and the release's summary row need to know about a staged release, in one scan
    of the staging table: published rows, those below k (or NULL, NaN, infinite: a count must be
    a finite number of at least k; NaN compares above every number, hence the upper bound), and
    from a long form every fact it states (_long_form_facts); in the same query, from the trail,
    the report's previous release's input rows and key fingerprint. Also the count column as
    resolved. -#}
{% macro _release_facts(staging, staged, count_column, k, long_form, audit_releases) %}
  {#- a release without a count column (records) has no row to compare with k: its gate recounts -#}
  {%- set count_name = kanon._release_count_column(staged, count_column) if count_column is not none else none -%}
  {%- set count = kanon._quote(count_name) if count_name is not none else 'null' -%}
  {%- set published = kanon._long_form_is('release') if long_form else '1 = 1' -%}
  {%- set facts = kanon._long_form_facts() if long_form else [] -%}
  {%- set facts_sql -%}
    select
      coalesce(sum(case when {{ published }} then 1 else 0 end), 0),
      {%- if count_name is not none %}
      coalesce(sum(case when {{ published }} and ({{ count }} is null
        or not ({{ count }} >= {{ k }} and {{ count }} <= 9223372036854775807)) then 1 else 0 end), 0)
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
      'previous_input_rows': (row[2] | int) if row[2] is not none else none,
      'previous_key_fingerprint': row[3],
  } -%}
  {%- do result.update({'cells_in': result.cells_passed + result.cells_generalized + result.cells_suppressed}) -%}
  {{ return(result) }}
{% endmacro %}

{#- kanon_audit_releases.suppression_rate: for a record release the share of its budget's unit
    suppressed (records, or people with suppression_unit='people'), as the budget is checked;
    for the others the share of cells suppressed (counts: finest cells; tables: cells and
    totals hidden; hand-written: 0). -#}
{% macro _release_suppression_rate(kind, facts) %}
  {%- if kind == 'records' -%}
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

{#- The gate's named checks of a staged release, in order: [(name, why it fails or '')]. Each
    reason gives counts only, never cells. The first failing check refuses the release; its name
    is in the error and in kanon_audit_releases.failed_check. Which checks apply is the release
    kind's (see _release_kinds):
      input_empty         the release read some rows, unless config allow_empty_input (every kind)
      input_shrink        it read at least 1 - max_input_shrink of the previous release's rows
                          (every kind; config max_input_shrink, default 0.5)
      small_change        no published row changed by 1 to k-1 people since the previous
                          release, when on_small_change='refuse' (counts, records, tables)
      min_count           every published row has a finite count of at least k (every kind)
      null_unit           no event without a person, when null_unit='error'
      suppression_budget  at most max_suppression of the people suppressed, when set
      records_search, records_recount, records_budget  a record release's (_records_gate_check)
      table_search, table_recount, table_line_rule, no_exact_disclosure  a table's (_table_gate_check) -#}
{% macro _release_checks(kind, facts, max_suppression, count_column, k, staging=none) %}
  {%- set checks = [] -%}
  {%- for check in kind.checks -%}
    {%- if check in ['input_empty', 'input_shrink'] -%}
      {%- do checks.append((check, kanon._release_input_check(check, facts))) -%}
    {%- elif check == 'small_change' -%}
      {%- do checks.append((check, (facts.rows_changed_small ~ " of " ~ facts.rows_compared ~ " row(s) published before changed by 1 to "
          ~ (k - 1) ~ " people since the previous release, and on_small_change='refuse'")
          if facts.on_small_change == 'refuse' and facts.rows_changed_small else '')) -%}
    {%- elif check == 'min_count' -%}
      {%- do checks.append(('min_count', (facts.below_k ~ " row(s) have " ~ count_column ~ " below k=" ~ k
          ~ " or NULL, NaN or infinite") if facts.below_k > 0 else '')) -%}
    {%- elif check == 'null_unit' -%}
      {%- do checks.append(('null_unit', (facts.events_null_unit ~ " event(s) have a NULL privacy unit and null_unit='error'")
          if facts.null_unit == 'error' and facts.events_null_unit > 0 else '')) -%}
    {%- elif check == 'suppression_budget' and max_suppression is not none -%}
      {%- set over = facts.people_in > 0 and facts.people_suppressed / facts.people_in > max_suppression -%}
      {%- do checks.append(('suppression_budget', (facts.people_suppressed ~ " of " ~ facts.people_in ~ " people ("
          ~ ((100.0 * facts.people_suppressed / facts.people_in) | round(1)) ~ " %) were suppressed, more than max_suppression="
          ~ max_suppression) if over else '')) -%}
    {%- elif check in ['records_search', 'records_recount', 'records_budget'] -%}
      {%- do checks.append((check, kanon._records_gate_check(check, facts, staging, k, max_suppression))) -%}
    {%- elif check in ['table_search', 'table_recount', 'table_line_rule', 'no_exact_disclosure'] -%}
      {%- do checks.append((check, kanon._table_gate_check(check, facts, staging, k))) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(checks) }}
{% endmacro %}

{#- The input against an upstream failure, from the model's config (checked at compile time):
    an input without rows (input_empty) or one that shrank by more than max_input_shrink since
    the previous release (input_shrink) would replace a good release with an empty or partial
    one. Returns why the check fails, or ''. -#}
{% macro _release_input_check(check, facts) %}
  {%- set what = "the release read " ~ facts.input_rows ~ " input row(s)" -%}
  {%- if check == 'input_empty' -%}
    {{ return((what ~ " (an upstream load that failed?); set config allow_empty_input=true to publish an empty release")
        if facts.input_rows == 0 and not config.get('allow_empty_input', false) else '') }}
  {%- endif -%}
  {%- set share = config.get('max_input_shrink', 0.5) -%}
  {%- set before = facts.previous_input_rows -%}
  {%- if before is none or before == 0 or facts.input_rows >= before -%}
    {{ return('') }}
  {%- endif -%}
  {%- set shrink = 1 - facts.input_rows / before -%}
  {{ return((what ~ ", " ~ ((100 * shrink) | round(1)) ~ " % fewer than the previous release's " ~ before
      ~ ", more than max_input_shrink=" ~ share ~ " (an upstream load that failed?); raise max_input_shrink (1 allows any)"
      " to publish it") if shrink > share + 1e-12 else '') }}
{% endmacro %}

{#- The first failing check, as (name, reason), or none when the release may be published. -#}
{% macro _release_failed_check(checks) %}
  {%- for name, reason in checks if reason -%}
    {{ return((name, reason)) }}
  {%- endfor -%}
  {{ return(none) }}
{% endmacro %}

{#- Warnings about a release that will be published: nothing at all, events without a person,
    values missing from a hierarchy. -#}
{% macro _warn_release_facts(facts, staging, long_form) %}
  {%- if facts.rows_published == 0 -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ " publishes no rows"
        ~ (" (" ~ facts.people_suppressed ~ " people suppressed)" if long_form else "")
        ~ "; the previous release is replaced by an empty table. Set config max_suppression to refuse such a release instead.") -%}
  {%- endif -%}
  {%- if long_form and facts.events_null_unit > 0 -%}
    {%- set called = kanon._release_kinds().get(config.get('kanon_release_kind') or 'counts', {}).get('called', 'kanon.release_counts') -%}
    {%- do kanon._null_unit_found(kanon._who(called), facts.null_unit, facts.events_null_unit, facts.privacy_unit) -%}
  {%- endif -%}
  {%- if long_form -%}
    {%- do kanon._warn_missing_labels(staging) -%}
  {%- endif -%}
  {%- if facts.rows_changed_small -%}
    {%- set counts = facts.rows_held is not none -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": " ~ facts.rows_changed_small ~ " of " ~ facts.rows_compared
        ~ (" row(s)" if counts or not facts.records_in else " class(es) of records") ~ " published before changed by 1 to "
        ~ (config.get('k') - 1) ~ (" people" if counts else "") ~ " since the previous release: a reader comparing the two"
        ~ " releases counts those people (a differencing risk). " ~ (facts.rows_held ~ " row(s) are held at their previous value."
        if facts.rows_held else ("Release with on_small_change='hold' to hold such rows until the change reaches k." if counts
        else "Release less often, or with on_small_change='refuse' to keep the previous release until such changes are gone."))) -%}
  {%- endif -%}
  {%- if facts.key_fingerprint and facts.previous_key_fingerprint and facts.key_fingerprint != facts.previous_key_fingerprint -%}
    {%- do exceptions.warn("kanon: " ~ model.unique_id ~ ": the pseudonym key changed since the previous release (key fingerprint "
        ~ facts.key_fingerprint ~ ", was " ~ facts.previous_key_fingerprint ~ "): every pseudonym differs from the previous"
        ~ " release's, so its records cannot be linked with this one's. Release with the previous key if that was not intended.") -%}
  {%- endif -%}
{% endmacro %}

{#- Warns for every dimension whose values the release found missing from its hierarchy (they
    were released only at its root); counted by the release as its 'missing_values' facts. -#}
{% macro _warn_missing_labels(staging) %}
  {%- set found = run_query("select _kanon_text, _kanon_value from " ~ staging
      ~ " where " ~ kanon._long_form_is_fact('missing_values') ~ " and _kanon_value > 0 order by _kanon_text") -%}
  {%- for dimension, values in found.rows -%}
    {%- do exceptions.warn(
        "kanon: " ~ model.unique_id ~ ": " ~ values ~ " distinct value(s) of '" ~ dimension
        ~ "' are missing from its hierarchy; they are released only at its root. "
        ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
  {%- endfor -%}
{% endmacro %}
