{#- {columns, floats}: the names of `relation`'s columns as the warehouse spells them, and of
    those holding floating-point numbers; raises when it has none (it does not exist). -#}
{% macro _relation_columns(relation, who) %}
  {%- set found = {'columns': [], 'floats': []} -%}
  {%- for col in adapter.get_columns_in_relation(relation) -%}
    {%- do found.columns.append(col.name) -%}
    {%- if col.is_float() -%}{%- do found.floats.append(col.name) -%}{%- endif -%}
  {%- endfor -%}
  {%- if found.columns | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": relation " ~ relation ~ " has no columns or does not exist") }}
  {%- endif -%}
  {{ return(found) }}
{% endmacro %}

{#- A column of `relation` as the warehouse resolves the name: the exact spelling first, else
    the one column equal up to letter case. Two columns equal up to case (Postgres "pid" and
    "PID") with neither spelled exactly as given are ambiguous and refused, never guessed. At
    parse time (no columns known) the name is returned as given. -#}
{% macro _resolve_column(name, columns, argument, relation, who) %}
  {%- if not execute or columns | length == 0 -%}{{ return(name) }}{%- endif -%}
  {%- if name in columns -%}{{ return(name) }}{%- endif -%}
  {%- set matches = [] -%}
  {%- for column in columns if column | lower == name | lower -%}{%- do matches.append(column) -%}{%- endfor -%}
  {%- if matches | length == 0 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " column '" ~ name ~ "' is not a column of "
        ~ relation) }}
  {%- endif -%}
  {%- if matches | length > 1 -%}
    {{ exceptions.raise_compiler_error(who ~ ": " ~ argument ~ " column '" ~ name ~ "' is ambiguous in " ~ relation
        ~ ": it matches " ~ (matches | join(', ')) ~ " up to letter case; spell it exactly as one of them") }}
  {%- endif -%}
  {{ return(matches[0]) }}
{% endmacro %}

{#- Whether a SQL expression mentions a column name as an identifier (bare or quoted, any case). -#}
{% macro _sql_mentions(expression, name) %}
  {%- set pattern = '(?<![A-Za-z0-9_$])"?' ~ modules.re.escape(name | replace('"', '""')) ~ '"?(?![A-Za-z0-9_$])' -%}
  {{ return(modules.re.search(pattern, expression, modules.re.IGNORECASE) is not none) }}
{% endmacro %}
