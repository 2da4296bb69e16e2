{#-
    kanon.hierarchy_covers (column-level, on the SOURCE relation)

    Every distinct non-null value of the column appears as a leaf (level_0) of `hierarchy`.
    Both sides are compared as strings, so an integer column can be checked against a text
    hierarchy. Failing rows, one per uncovered value: value (as a string), n_rows.
-#}
{% test hierarchy_covers(model, column_name=none, hierarchy=none) %}
    {%- if column_name is none -%}
        {%- do exceptions.raise_compiler_error(
            "kanon.hierarchy_covers: argument `column_name` is missing: list the test under the "
            ~ "data column it checks (columns: - name: <column> data_tests: - kanon.hierarchy_covers)"
        ) -%}
    {%- endif -%}
    {%- if hierarchy is none -%}
        {%- do exceptions.raise_compiler_error(
            "kanon.hierarchy_covers: argument `hierarchy` is required on column " ~ column_name
            ~ ": the hierarchy relation, e.g. hierarchy: ref('hierarchy_title')"
        ) -%}
    {%- endif -%}
    {%- if not (hierarchy is mapping and hierarchy.get('metadata', {}).get('type', '').endswith('Relation')) -%}
        {%- do exceptions.raise_compiler_error(
            "kanon.hierarchy_covers: argument `hierarchy` on column " ~ column_name
            ~ " must be a relation such as ref('hierarchy_title'), got: " ~ hierarchy
        ) -%}
    {%- endif -%}
    {{ return(adapter.dispatch('test_hierarchy_covers', 'kanon')(model, column_name, hierarchy)) }}
{% endtest %}

{% macro default__test_hierarchy_covers(model, column_name, hierarchy) %}
    {%- set levels = kanon._hierarchy_level_columns(hierarchy) or ['level_0', 'level_1'] -%}
    {%- set leaf = adapter.quote(levels[0]) -%}
    {%- set as_text = dbt.type_string() %}

with source_values as (
    select
        cast({{ column_name }} as {{ as_text }}) as value,
        count(*) as n_rows
    from {{ model }}
    where {{ column_name }} is not null
    group by cast({{ column_name }} as {{ as_text }})
),

hierarchy_leaves as (
    select distinct cast({{ leaf }} as {{ as_text }}) as leaf
    from {{ hierarchy }}
    where {{ leaf }} is not null
)

select
    source_values.value,
    source_values.n_rows
from source_values
left join hierarchy_leaves
    on source_values.value = hierarchy_leaves.leaf
where hierarchy_leaves.leaf is null
{% endmacro %}
