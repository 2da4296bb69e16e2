{#-
    kanon.hierarchy_no_blank_labels (model-level)

    No label in any level column is null or blank (empty, or only whitespace once trimmed).
    Failing rows, one per offending level column: level ('level_0', ...), n_blank.
-#}
{% test hierarchy_no_blank_labels(model, column_name=none) %}
    {%- do kanon._hierarchy_model_level_only('hierarchy_no_blank_labels', column_name) -%}
    {{ return(adapter.dispatch('test_hierarchy_no_blank_labels', 'kanon')(model)) }}
{% endtest %}

{% macro default__test_hierarchy_no_blank_labels(model) %}
    {%- set levels = kanon._hierarchy_level_columns(model) or ['level_0', 'level_1'] %}

with labels as (
    {%- for level_column in levels %}
    select
        cast('{{ level_column | lower }}' as {{ dbt.type_string() }}) as level,
        cast({{ adapter.quote(level_column) }} as {{ dbt.type_string() }}) as label
    from {{ model }}
        {%- if not loop.last %}
    union all
        {%- endif %}
    {%- endfor %}
)

select
    level,
    count(*) as n_blank
from labels
where {{ kanon.hierarchy_label_is_blank('label') }}
group by level
{% endmacro %}

{#-
    kanon.hierarchy_label_is_blank(expression): a boolean SQL condition on a string-typed
    expression, true when it is null or blank. The portable default trims spaces (standard SQL
    trim); adapters with chr() also count tab, line feed and carriage return as whitespace.
-#}
{% macro hierarchy_label_is_blank(expression) %}
    {{- return(adapter.dispatch('hierarchy_label_is_blank', 'kanon')(expression)) -}}
{% endmacro %}

{% macro default__hierarchy_label_is_blank(expression) -%}
    ({{ expression }} is null or trim({{ expression }}) = '')
{%- endmacro %}

{% macro _hierarchy_label_is_blank_with_chr(expression) -%}
    {%- set spaced = "replace(replace(replace(" ~ expression ~ ", chr(9), ' '), chr(10), ' '), chr(13), ' ')" -%}
    ({{ expression }} is null or trim({{ spaced }}) = '')
{%- endmacro %}

{% macro postgres__hierarchy_label_is_blank(expression) -%}
    {{- kanon._hierarchy_label_is_blank_with_chr(expression) -}}
{%- endmacro %}

{% macro duckdb__hierarchy_label_is_blank(expression) -%}
    {{- kanon._hierarchy_label_is_blank_with_chr(expression) -}}
{%- endmacro %}
