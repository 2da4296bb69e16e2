{#-
  A JSON object as text, from (key, SQL expression, is_text) triples, built by concatenation so
  every warehouse writes the same bytes (json functions differ in spacing and key order).
  Text values escape backslash, double quote, newline and carriage return; NULL becomes null.
-#}
{% macro _json_object(pairs) %}
  {{ return(adapter.dispatch('_json_object', 'kanon')(pairs)) }}
{% endmacro %}

{% macro default___json_object(pairs) -%}
  {%- set string = dbt.type_string() -%}
  '{'
  {%- for key, expression, is_text in pairs %}
  || '{{ (tojson(key) ~ ":") | replace("'", "''") }}'
  {%- if is_text %}
  || coalesce('"' || replace(replace(replace(replace(cast({{ expression }} as {{ string }}), '\', '\\'), '"', '\"'), chr(10), '\n'), chr(13), '\r') || '"', 'null')
  {%- else %}
  || coalesce(cast({{ expression }} as {{ string }}), 'null')
  {%- endif %}
  {%- if not loop.last %} || ','{% endif %}
  {%- endfor %}
  || '}'
{%- endmacro %}
