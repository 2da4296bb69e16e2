{#-
    kanon._hierarchy_level_columns(relation)

    The ordered level columns of a hierarchy relation: ['level_0', 'level_1', ..., 'level_n'],
    sorted by their integer suffix (level_10 comes after level_9), spelled as the warehouse
    reports them (so they can be passed to adapter.quote). A level column is named exactly
    level_<int> (any letter case, no leading zeros); other columns are ignored.

    Raises a compiler error naming the relation when there is no level_0, when the levels are
    not contiguous 0..n, when two columns claim the same level, or when there are fewer than
    two levels. Returns [] at parse time (execute is false), when no relation can be inspected.
-#}
{% macro _hierarchy_level_columns(relation) %}
    {%- if not execute -%}
        {{ return([]) }}
    {%- endif -%}

    {%- if relation is none -%}
        {%- do exceptions.raise_compiler_error(
            "kanon._hierarchy_level_columns: argument `relation` is required (a relation "
            ~ "such as ref('hierarchy_title')), got none"
        ) -%}
    {%- endif -%}

    {%- if relation is string -%}
        {%- do exceptions.raise_compiler_error(
            "kanon._hierarchy_level_columns: argument `relation` must be a relation such as "
            ~ "ref('hierarchy_title'), got the text: " ~ relation
            ~ " (a `where` config on a model-level hierarchy test is not supported: a hierarchy "
            ~ "is checked whole)"
        ) -%}
    {%- endif -%}

    {%- set columns = adapter.get_columns_in_relation(relation) -%}
    {%- if columns | length == 0 -%}
        {%- do exceptions.raise_compiler_error(
            "kanon: hierarchy " ~ relation ~ " has no columns: it does not exist or cannot be "
            ~ "inspected (is it built, and is it a table or view?)"
        ) -%}
    {%- endif -%}

    {#- level number -> column name as the warehouse spells it -#}
    {%- set by_level = {} -%}
    {%- for column in columns -%}
        {%- set match = modules.re.fullmatch('level_(0|[1-9][0-9]*)', column.name, modules.re.IGNORECASE) -%}
        {%- if match -%}
            {%- set level = match.group(1) | int -%}
            {%- if level in by_level -%}
                {%- do exceptions.raise_compiler_error(
                    "kanon: hierarchy " ~ relation ~ " has two columns for level " ~ level
                    ~ " (" ~ by_level[level] ~ " and " ~ column.name ~ ")"
                ) -%}
            {%- endif -%}
            {%- do by_level.update({level: column.name}) -%}
        {%- endif -%}
    {%- endfor -%}

    {%- if 0 not in by_level -%}
        {%- do exceptions.raise_compiler_error(
            "kanon: hierarchy " ~ relation ~ " has no level_0 column (the leaf, as it appears "
            ~ "in the data); its columns are: "
            ~ (columns | map(attribute='name') | join(', '))
        ) -%}
    {%- endif -%}

    {%- set levels = by_level.keys() | sort -%}
    {%- if levels[-1] != (levels | length) - 1 -%}
        {%- set missing = [] -%}
        {%- for level in range(levels[-1]) if level not in by_level -%}
            {%- do missing.append('level_' ~ level) -%}
        {%- endfor -%}
        {%- do exceptions.raise_compiler_error(
            "kanon: hierarchy " ~ relation ~ " has level columns that are not contiguous from "
            ~ "level_0 to level_" ~ levels[-1] ~ "; missing: " ~ (missing | join(', '))
        ) -%}
    {%- endif -%}

    {%- if levels | length < 2 -%}
        {%- do exceptions.raise_compiler_error(
            "kanon: hierarchy " ~ relation ~ " has only level_0; a hierarchy needs at least "
            ~ "two levels (the leaf and a single root such as '*')"
        ) -%}
    {%- endif -%}

    {%- set ordered = [] -%}
    {%- for level in levels -%}
        {%- do ordered.append(by_level[level]) -%}
    {%- endfor -%}
    {{ return(ordered) }}
{% endmacro %}
