{#- A text value as an SQL string literal (single quotes doubled), or null when there is none. -#}
{% macro _sql_text(value) %}
  {{ return(("'" ~ (value | string | replace("'", "''")) ~ "'") if value is not none else 'null') }}
{% endmacro %}
