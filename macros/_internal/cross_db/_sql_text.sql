{#- A text value as an SQL string literal (single quotes doubled), or null when there is none. -#}
{% macro _sql_text(value) %}
  {{ return(adapter.dispatch('_sql_text', 'kanon')(value)) }}
{% endmacro %}

{% macro default___sql_text(value) %}
  {{ return(("'" ~ (value | string | replace("'", "''")) ~ "'") if value is not none else 'null') }}
{% endmacro %}

{#- Spark's string literals take backslash escapes: a backslash in the value is doubled too. -#}
{% macro spark___sql_text(value) %}
  {{ return(("'" ~ (value | string | replace("\\", "\\\\") | replace("'", "''")) ~ "'")
      if value is not none else 'null') }}
{% endmacro %}
