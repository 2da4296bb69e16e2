{#-
    kanon.hierarchy_leaves_unique (model-level)

    A hierarchy has one row per leaf: every level_0 value appears exactly once.
    Failing rows, one per offending leaf: leaf, n_rows (how many rows carry it).
-#}
{% test hierarchy_leaves_unique(model, column_name=none) %}
    {%- do kanon._hierarchy_model_level_only('hierarchy_leaves_unique', column_name) -%}
    {{ return(adapter.dispatch('test_hierarchy_leaves_unique', 'kanon')(model)) }}
{% endtest %}

{% macro default__test_hierarchy_leaves_unique(model) %}
    {#- at parse time the helper returns []; the placeholder keeps the rendered SQL well-formed -#}
    {%- set levels = kanon._hierarchy_level_columns(model) or ['level_0', 'level_1'] -%}
    {%- set leaf = adapter.quote(levels[0]) %}

select
    {{ leaf }} as leaf,
    count(*) as n_rows
from {{ model }}
group by {{ leaf }}
having count(*) > 1
{% endmacro %}
