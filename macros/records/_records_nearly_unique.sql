{#-
  The columns a record release publishes as they are (keep, sensitive) that nearly identify a
  person: distinct values per person (per record without a privacy unit) at least the share
  kanon_inspect_records calls identifier-like, over at least its minimum of rows (the same
  thresholds, _inspect_records_rules). `keep` is the user's responsibility, so nothing is
  refused; the release warns, and its plan records them (names and counts, never a value).
  One query over the relation, when the model compiles; [] without such columns.
    [{'column', 'role', 'distinct', 'of'}], `of` the people (or records) with a value
-#}
{% macro _records_nearly_unique(plan, who) %}
  {%- set shown = plan.columns | selectattr('role', 'in', ['keep', 'sensitive']) | list -%}
  {%- if not shown -%}{{ return([]) }}{%- endif -%}
  {%- set q = kanon._quote -%}
  {%- set unit = q(plan.privacy_unit) if plan.privacy_unit is not none else none -%}
  {%- set sql -%}
    select
      {%- for c in shown %}
      {%- set value = q(c.name) %}
      {% if not loop.first %}, {% endif %}count(distinct {{ value }}),
      {{ ('count(distinct case when ' ~ value ~ ' is not null then ' ~ unit ~ ' end)') if unit
         else 'count(' ~ value ~ ')' }}
      {%- endfor %}
    from {{ plan.relation }}
    {%- if unit %}
    where {{ unit }} is not null
    {%- endif %}
  {%- endset -%}
  {%- set row = run_query(sql).rows[0] -%}
  {%- set rules = kanon._inspect_records_rules() -%}
  {%- set found = [] -%}
  {%- for c in shown -%}
    {%- set distinct = row[2 * loop.index0] | int -%}
    {%- set of = row[2 * loop.index0 + 1] | int -%}
    {%- if of >= rules.unique_min_rows and distinct >= rules.unique_share * of -%}
      {%- do found.append({'column': c.name, 'role': c.role, 'distinct': distinct, 'of': of}) -%}
      {%- do exceptions.warn(who ~ ": column '" ~ c.name ~ "' (" ~ c.role ~ ") has " ~ distinct
          ~ " distinct values for " ~ of ~ (" people" if unit else " records")
          ~ ": it nearly identifies a person and is published as it is. Drop it,"
          ~ " pseudonymize it (role identifier, pseudonym: true) or declare it a quasi-identifier.") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}
