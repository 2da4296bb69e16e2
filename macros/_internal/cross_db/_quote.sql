{#- A column name as a quoted identifier, any name at all: an embedded double quote is doubled
    (adapter.quote leaves it as is, which breaks the SQL around a column named `say "hi"`). -#}
{% macro _quote(name) %}
  {{- return(adapter.dispatch('_quote', 'kanon')(name)) -}}
{% endmacro %}

{% macro default___quote(name) -%}
  {{ return('"' ~ (name | replace('"', '""')) ~ '"') }}
{%- endmacro %}

{#- "a", "b", ...: column names quoted with _quote and joined by commas. -#}
{% macro _quote_list(names) %}
  {%- set quoted = [] -%}
  {%- for name in names -%}{%- do quoted.append(kanon._quote(name)) -%}{%- endfor -%}
  {{ return(quoted | join(', ')) }}
{% endmacro %}

{#- Spark quotes identifiers with backticks (a double-quoted name is a string literal there); an
    embedded backtick is doubled. -#}
{% macro spark___quote(name) -%}
  {{ return('`' ~ (name | replace('`', '``')) ~ '`') }}
{%- endmacro %}
