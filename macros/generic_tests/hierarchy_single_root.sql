{#-
    kanon.hierarchy_single_root (model-level)

    The last level column holds exactly one distinct non-null value (the root, such as '*').
    Failing row (at most one): n_roots, the number of distinct non-null values found there.
-#}
{% test hierarchy_single_root(model, column_name=none) %}
    {%- do kanon._hierarchy_model_level_only('hierarchy_single_root', column_name) -%}
    {{ return(adapter.dispatch('test_hierarchy_single_root', 'kanon')(model)) }}
{% endtest %}

{% macro default__test_hierarchy_single_root(model) %}
    {%- set levels = kanon._hierarchy_level_columns(model) or ['level_0', 'level_1'] -%}
    {%- set root = adapter.quote(levels[-1]) %}

with roots as (
    select count(distinct {{ root }}) as n_roots
    from {{ model }}
)

select n_roots
from roots
where n_roots <> 1
{% endmacro %}
