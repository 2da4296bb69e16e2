{#-
    kanon.hierarchy_levels_unambiguous (model-level)

    A published label says which leaves it stands for, whatever its level: a label may appear at
    several levels only when it holds exactly the same leaves at each of them (a pass-through
    such as 65+ -> 65+, or 13-24 at level_1 and level_2 over the same two leaves). 10100 -> 10101
    next to 10101 -> 10100 fails: a published 10101 could be the leaf 10101 or the group holding
    10100. Labels are compared as text (as they are published). Failing rows, one per offending
    label: label (as a string), n_levels (the levels it appears at), n_leaves (the leaves it holds
    at any of them).
-#}
{% test hierarchy_levels_unambiguous(model, column_name=none) %}
    {%- do kanon._hierarchy_model_level_only('hierarchy_levels_unambiguous', column_name) -%}
    {{ return(adapter.dispatch('test_hierarchy_levels_unambiguous', 'kanon')(model)) }}
{% endtest %}

{% macro default__test_hierarchy_levels_unambiguous(model) %}
    {%- set levels = kanon._hierarchy_level_columns(model) or ['level_0', 'level_1'] %}
{{ kanon._hierarchy_ambiguous_labels(model, levels) }}
{% endmacro %}

{#-
    kanon._hierarchy_ambiguous_labels(relation, level_columns): a select of the labels standing
    for different leaves at two levels, with (label, n_levels, n_leaves); one definition for the
    test above and the release engine's check (kanon._hierarchy_validate counts its rows).

    The hierarchy unpivoted to distinct (leaf, level, label), all as text: a label is
    unambiguous exactly when every leaf it holds carries it at every level it appears at, that
    is when its rows number its distinct levels times its distinct leaves. NULL and blank labels
    (and the rows of a NULL or blank leaf) are left out: hierarchy_no_blank_labels finds them.
    A leaf listed twice is read as one leaf with its labels (hierarchy_leaves_unique and
    hierarchy_single_parent find it).
-#}
{% macro _hierarchy_ambiguous_labels(relation, level_columns) -%}
    {%- set string = dbt.type_string() -%}
    {%- set leaf = 'cast(' ~ kanon._quote(level_columns[0]) ~ ' as ' ~ string ~ ')' %}
select
    label,
    count(distinct level_number) as n_levels,
    count(distinct leaf) as n_leaves
from (
    select distinct
        leaf,
        level_number,
        label
    from (
        {%- for level_column in level_columns %}
        select
            {{ leaf }} as leaf,
            {{ loop.index0 }} as level_number,
            cast({{ kanon._quote(level_column) }} as {{ string }}) as label
        from {{ relation }}
            {%- if not loop.last %}
        union all
            {%- endif %}
        {%- endfor %}
    ) as level_labels
    where
        not {{ kanon.hierarchy_label_is_blank('leaf') }}
        and not {{ kanon.hierarchy_label_is_blank('label') }}
) as leaf_level_labels
group by label
having count(*) <> count(distinct level_number) * count(distinct leaf)
{%- endmacro %}
