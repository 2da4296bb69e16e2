{#- Rows of a relation (optionally filtered) whose count column is below k or NULL; also checks
    the column is one of the relation's `columns`. -#}
{% macro _count_below_k(relation, count_column, k, filter, columns) %}
  {%- set names = columns | map('lower') | list -%}
  {%- if count_column | lower not in names -%}
    {{ exceptions.raise_compiler_error(
        "kanon: " ~ model.unique_id ~ " has no column '" ~ count_column ~ "' to check against k; "
        ~ "set config count_column to the column holding each row's people count") }}
  {%- endif -%}
  {%- set check_sql -%}
    select count(*) from (select * from {{ relation }} {{ filter }}) as published
    where {{ adapter.quote(count_column) }} is null or {{ adapter.quote(count_column) }} < {{ k }}
  {%- endset -%}
  {{ return(run_query(check_sql).rows[0][0] | int) }}
{% endmacro %}

{#- Compile-time checks of the k_anonymous materialization's config. -#}
{% macro _check_release_config(k, count_column) %}
  {%- do kanon._check_k(k, "kanon: " ~ model.unique_id ~ " (materialized k_anonymous)") -%}
  {%- if count_column is not string or count_column | trim == '' -%}
    {{ exceptions.raise_compiler_error("kanon: " ~ model.unique_id ~ ": count_column must be a column name") }}
  {%- endif -%}
{% endmacro %}

{#- Warns for every dimension whose values the release found missing from its hierarchy (they
    were released only at its root); counted by release_counts in its 'missing' rows. -#}
{% macro _warn_missing_labels(staging) %}
  {%- set found = run_query("select _kanon_cell_labels, _kanon_people from " ~ staging
      ~ " where _kanon_row = 'missing' and _kanon_people > 0 order by _kanon_cell_labels") -%}
  {%- for dimension, values in found.rows -%}
    {%- do exceptions.warn(
        "kanon: " ~ model.unique_id ~ ": " ~ values ~ " distinct value(s) of '" ~ dimension
        ~ "' are missing from its hierarchy; they are released only at its root. "
        ~ "Add them to the hierarchy seed (the kanon.hierarchy_covers test lists them).") -%}
  {%- endfor -%}
{% endmacro %}
