{#- A text expression as ORDER BY should compare it for a tie-break that is the same on every
    warehouse: by its bytes (UTF-8, so by code point). DuckDB compares text that way already;
    Postgres compares by the database's collation (en_US sorts 'b' before 'C', C does not), so
    its override asks for the C collation. -#}
{% macro _text_order(expression) %}
  {{- return(adapter.dispatch('_text_order', 'kanon')(expression)) -}}
{% endmacro %}

{% macro default___text_order(expression) -%}
  {{ return(expression) }}
{%- endmacro %}

{% macro postgres___text_order(expression) -%}
  {{ return(expression ~ ' collate "C"') }}
{%- endmacro %}
