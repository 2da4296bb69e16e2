{#- Refuses a release whose published columns would clash: a name starting with _kanon_ (the
    materialization takes those for its own), or two names equal up to letter case (DuckDB
    would reject them, Postgres readers confuse them). `outputs` is [(role, name)] in the order
    they are published; `published` says what the release publishes, for the message. -#}
{% macro _check_published_columns(outputs, who, published) %}
  {%- set seen = {} -%}
  {%- for role, name in outputs -%}
    {%- if (name | lower).startswith('_kanon_') -%}
      {{ exceptions.raise_compiler_error(who ~ ": " ~ role ~ " '" ~ name
          ~ "' starts with _kanon_, which kanon reserves for its own columns; rename it") }}
    {%- endif -%}
    {%- if name | lower in seen -%}
      {{ exceptions.raise_compiler_error(who ~ ": released column '" ~ name ~ "' (" ~ role ~ ") clashes with '"
          ~ seen[name | lower][1] ~ "' (" ~ seen[name | lower][0] ~ "); released columns are " ~ published
          ~ ": rename one") }}
    {%- endif -%}
    {%- do seen.update({name | lower: (role, name)}) -%}
  {%- endfor -%}
{% endmacro %}
