{#-
  The checks the k_anonymous materialization makes before it publishes: its config at compile
  time, then the release's facts, read from the staging table in one query.
-#}

{#- Compile-time checks of the k_anonymous materialization's config. -#}
{% macro _check_release_config(k, count_column, max_suppression) %}
  {%- set who = "kanon: " ~ model.unique_id ~ " (materialized k_anonymous)" -%}
  {%- do kanon._check_k(k, who) -%}
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
    from a release_counts long form the cells by decision, the people suppressed and in, the
    events without a person and the policy fingerprint. Also the count column as resolved. -#}
{% macro _release_facts(staging, staged, count_column, k, long_form) %}
  {%- set count_name = kanon._release_count_column(staged, count_column) -%}
  {%- set count = kanon._quote(count_name) -%}
  {%- set published = kanon._long_form_is('release') if long_form else '1 = 1' -%}
  {%- set facts_sql -%}
    select
      coalesce(sum(case when {{ published }} then 1 else 0 end), 0),
      coalesce(sum(case when {{ published }} and ({{ count }} is null
        or not ({{ count }} >= {{ k }} and {{ count }} <= 9223372036854775807)) then 1 else 0 end), 0)
      {%- if long_form %},
      max(case when {{ kanon._long_form_is('suppressed') }} then _kanon_people end),
      max(case when {{ kanon._long_form_is('people_in') }} then _kanon_people end),
      max(case when {{ kanon._long_form_is('null_unit') }} then _kanon_people end),
      max(case when {{ kanon._long_form_is('null_unit') }} then _kanon_decision end),
      max(case when {{ kanon._long_form_is('null_unit') }} then _kanon_cell_labels end),
      max(case when {{ kanon._long_form_is('policy') }} then _kanon_cell_labels end),
      {%- for decision in ['PASS', 'GENERALIZE', 'SUPPRESS'] %}
      coalesce(sum(case when {{ kanon._long_form_is('cell') }} and _kanon_decision = '{{ decision }}' then 1 else 0 end), 0),
      {%- endfor %}
      coalesce(sum(case when {{ kanon._long_form_is('cell') }} then 1 else 0 end), 0)
      {%- endif %}
    from {{ staging }}
  {%- endset -%}
  {%- set row = run_query(facts_sql).rows[0] -%}
  {#- a hand-written aggregate's published rows are its cells, each released as it is -#}
  {%- set published = row[0] | int -%}
  {{ return({
      'count_column': count_name,
      'rows_published': published,
      'cells_passed': (row[8] | int) if long_form else published,
      'cells_generalized': (row[9] | int) if long_form else 0,
      'cells_suppressed': (row[10] | int) if long_form else 0,
      'cells_in': (row[11] | int) if long_form else published,
      'below_k': row[1] | int,
      'people_suppressed': (row[2] | int) if long_form and row[2] is not none else 0,
      'people_in': (row[3] | int) if long_form and row[3] is not none else none,
      'events_null_unit': (row[4] | int) if long_form and row[4] is not none else 0,
      'null_unit': row[5] if long_form else none,
      'privacy_unit': row[6] if long_form else none,
      'policy_fingerprint': row[7] if long_form else none,
  }) }}
{% endmacro %}

{#- The gate's named checks of a staged release, in order: [(name, why it fails or '')]. Each
    reason gives counts only, never cells. The first failing check refuses the release; its name
    is in the error and in kanon_audit_releases.failed_check.
      min_count           every published row has a finite count of at least k
      null_unit           no event without a person, when null_unit='error'
      suppression_budget  at most max_suppression of the people suppressed, when set -#}
{% macro _release_checks(facts, max_suppression, count_column, k) %}
  {%- set checks = [] -%}
  {%- do checks.append(('min_count', (facts.below_k ~ " row(s) have " ~ count_column ~ " below k=" ~ k
      ~ " or NULL, NaN or infinite") if facts.below_k > 0 else '')) -%}
  {%- do checks.append(('null_unit', (facts.events_null_unit ~ " event(s) have a NULL privacy unit and null_unit='error'")
      if facts.null_unit == 'error' and facts.events_null_unit > 0 else '')) -%}
  {%- if max_suppression is not none -%}
    {%- if facts.people_in is none -%}
      {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ ": max_suppression needs a kanon.release_counts model "
          ~ "(a hand-written aggregate does not say how many people it left out); remove it from the config") }}
    {%- endif -%}
    {%- set over = facts.people_in > 0 and facts.people_suppressed / facts.people_in > max_suppression -%}
    {%- do checks.append(('suppression_budget', (facts.people_suppressed ~ " of " ~ facts.people_in ~ " people ("
        ~ ((100.0 * facts.people_suppressed / facts.people_in) | round(1)) ~ " %) were suppressed, more than max_suppression="
        ~ max_suppression) if over else '')) -%}
  {%- endif -%}
  {{ return(checks) }}
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
    {%- do kanon._null_unit_found(kanon._who('kanon.release_counts'), facts.null_unit, facts.events_null_unit, facts.privacy_unit) -%}
  {%- endif -%}
  {%- if long_form -%}
    {%- do kanon._warn_missing_labels(staging) -%}
  {%- endif -%}
{% endmacro %}

{#- Warns for every dimension whose values the release found missing from its hierarchy (they
    were released only at its root); counted by release_counts in its 'missing' rows. -#}
{% macro _warn_missing_labels(staging) %}
  {%- set found = run_query("select _kanon_cell_labels, _kanon_people from " ~ staging
      ~ " where " ~ kanon._long_form_is('missing') ~ " and _kanon_people > 0 order by _kanon_cell_labels") -%}
  {%- for dimension, values in found.rows -%}
    {%- do exceptions.warn(
        "kanon: " ~ model.unique_id ~ ": " ~ values ~ " distinct value(s) of '" ~ dimension
        ~ "' are missing from its hierarchy; they are released only at its root. "
        ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
  {%- endfor -%}
{% endmacro %}
