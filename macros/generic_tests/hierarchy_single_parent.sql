{#-
    kanon.hierarchy_single_parent (model-level)

    Each label at level i rolls up to exactly one label at level i+1, for every adjacent pair
    of level columns. Failing rows, one per offending (level, label):
    level ('level_0', 'level_1', ...), label (as a string), n_parents (distinct non-null parents).
-#}
{% test hierarchy_single_parent(model, column_name=none) %}
    {%- do kanon._hierarchy_model_level_only('hierarchy_single_parent', column_name) -%}
    {{ return(adapter.dispatch('test_hierarchy_single_parent', 'kanon')(model)) }}
{% endtest %}

{% macro default__test_hierarchy_single_parent(model) %}
    {%- set levels = kanon._hierarchy_level_columns(model) or ['level_0', 'level_1'] %}

with parent_counts as (
    {%- for child_level in levels[:-1] %}
        {%- set child = adapter.quote(child_level) %}
        {%- set parent = adapter.quote(levels[loop.index]) %}
    select
        cast('{{ child_level | lower }}' as {{ dbt.type_string() }}) as level,
        cast({{ child }} as {{ dbt.type_string() }}) as label,
        count(distinct {{ parent }}) as n_parents
    from {{ model }}
    group by {{ child }}
        {%- if not loop.last %}
    union all
        {%- endif %}
    {%- endfor %}
)

select
    level,
    label,
    n_parents
from parent_counts
where n_parents > 1
{% endmacro %}
