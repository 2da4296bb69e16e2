{#-
  A JSON object as text, from (key, SQL expression, is_text) triples, the same bytes on every
  warehouse (their json_object functions differ in spacing and key order): compact, keys in the
  given order, text values escaped by the warehouse's to_json (RFC 8259: quote, backslash and
  every control character), NULL as null.
-#}
{% macro _json_object(pairs) %}
  {{ return(adapter.dispatch('_json_object', 'kanon')(pairs)) }}
{% endmacro %}

{% macro default___json_object(pairs) -%}
  {%- set string = dbt.type_string() -%}
  concat('{'
  {%- for key, expression, is_text in pairs %},
  {{ kanon._sql_text((',' if not loop.first else '') ~ tojson(key) ~ ':') }},
  {%- if is_text %}
  {{ kanon._json_text(expression) }}
  {%- else %}
  coalesce(cast({{ expression }} as {{ string }}), 'null')
  {%- endif %}
  {%- endfor %},
  '}')
{%- endmacro %}

{#- DuckDB's to_json writes the \u00XX escape of a control character with upper-case hex digits,
    Postgres (and Python's json) with lower case; the rare object holding one is rewritten. -#}
{% macro duckdb___json_object(pairs) -%}
  {{ kanon._json_lower_case_escapes(kanon.default___json_object(pairs)) }}
{%- endmacro %}

{#- Spark's to_json (Jackson) writes them in upper case too. -#}
{% macro spark___json_object(pairs) -%}
  {{ kanon._json_lower_case_escapes(kanon.default___json_object(pairs)) }}
{%- endmacro %}

{#- `object` (SQL, JSON text) with every \u00XX escape whose hex digits hold a letter in lower
    case, as Postgres and Python write them (backspace, tab, newline, form feed and carriage
    return have their short escapes everywhere). -#}
{% macro _json_lower_case_escapes(object) -%}
  {%- set ns = namespace(fixed=object) -%}
  {%- for code in ['000B', '000E', '000F', '001A', '001B', '001C', '001D', '001E', '001F'] -%}
    {%- set ns.fixed = "replace(" ~ ns.fixed ~ ", " ~ kanon._sql_text('\\u' ~ code) ~ ", "
        ~ kanon._sql_text('\\u' ~ (code | lower)) ~ ")" -%}
  {%- endfor -%}
  case when instr({{ object }}, {{ kanon._sql_text('\\u00') }}) > 0 then {{ ns.fixed }} else {{ object }} end
{%- endmacro %}

{#- A text expression as a JSON string (null when NULL), escaped by the warehouse's to_json. -#}
{% macro _json_text(expression) %}
  {{ return(adapter.dispatch('_json_text', 'kanon')(expression)) }}
{% endmacro %}

{% macro default___json_text(expression) -%}
  {%- set string = dbt.type_string() -%}
  {{ return("coalesce(cast(to_json(cast(" ~ expression ~ " as " ~ string ~ ")) as " ~ string ~ "), 'null')") }}
{%- endmacro %}

{#- Spark's to_json takes a struct, not a scalar: the value is wrapped as {"v": ...} and
    unwrapped again (the 5 characters `{"v":` and the closing brace); a NULL field would be left
    out of the struct's JSON, so NULL is written here. -#}
{% macro spark___json_text(expression) -%}
  {%- set wrapped = "to_json(named_struct('v', cast(" ~ expression ~ " as " ~ dbt.type_string() ~ ")))" -%}
  {{ return("case when " ~ expression ~ " is null then 'null'"
      ~ " else substring(" ~ wrapped ~ ", 6, length(" ~ wrapped ~ ") - 6) end") }}
{%- endmacro %}
