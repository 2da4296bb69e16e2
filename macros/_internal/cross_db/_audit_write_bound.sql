{#-
  Runs one write to the audit trail whose text values are passed to the warehouse as bound
  parameters, not as literals in the SQL: dbt's debug log (logs/dbt.log) and target/run keep the
  text of every statement kanon runs, never its parameters. A record release's plan holds what its
  search learned from the data (classes and records by fate, hints), which belongs on the private
  trail only (ADR 8). `sql` has kanon._audit_bound_marker() where each of `values` goes, in order;
  a none value is written as a NULL literal.
-#}
{% macro _audit_write_bound(sql, values) %}
  {%- set parts = sql.split(kanon._audit_bound_marker()) -%}
  {%- if parts | length != values | length + 1 -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ (values | length) ~ " bound values for " ~ (parts | length - 1)
        ~ " places") }}
  {%- endif -%}
  {{ return(adapter.dispatch('_audit_write_bound', 'kanon')(parts, values)) }}
{% endmacro %}

{% macro _audit_bound_marker() %}
  {{ return('/* kanon:bound */') }}
{% endmacro %}

{#- The pieces joined with a placeholder for each value (`null` for none), and the bindings. -#}
{% macro _audit_bound_sql(parts, values, placeholder, escape_percent, binding) %}
  {%- set bindings = [] -%}
  {%- set sql = [] -%}
  {%- for part in parts -%}
    {%- do sql.append(part | replace('%', '%%') if escape_percent else part) -%}
    {%- if not loop.last -%}
      {%- set value = values[loop.index0] -%}
      {%- do sql.append(placeholder if value is not none else 'null') -%}
      {%- if value is not none -%}{%- do bindings.append(binding(value | string)) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do adapter.add_query(sql | join(''), bindings=bindings if bindings else none) -%}
{% endmacro %}

{#- psycopg2 (Postgres) formats parameters into the statement itself: every other `%` doubled. -#}
{% macro default___audit_write_bound(parts, values) %}
  {%- do kanon._audit_bound_sql(parts, values, '%s', true, kanon._audit_bound_as_is) -%}
{% endmacro %}

{% macro duckdb___audit_write_bound(parts, values) %}
  {%- do kanon._audit_bound_sql(parts, values, '?', false, kanon._audit_bound_as_is) -%}
{% endmacro %}

{#- dbt-spark's session cursor formats `%s` itself and quotes a text parameter without escaping
    it: the value is escaped as a Spark string literal's content first. -#}
{% macro spark___audit_write_bound(parts, values) %}
  {%- do kanon._audit_bound_sql(parts, values, '%s', true, kanon._audit_bound_spark_text) -%}
{% endmacro %}

{% macro _audit_bound_as_is(value) %}
  {{ return(value) }}
{% endmacro %}

{% macro _audit_bound_spark_text(value) %}
  {{ return(kanon._sql_text(value)[1:-1]) }}
{% endmacro %}
