{#- The rows of a perturbation table as the ptable_* tests read them, typed as SQL text: i, j, v,
    key_from, key_to as bigint (2^32 does not fit an integer) and p as a double. Stops a test listed
    under a column: they are model-level. -#}
{% macro _ptable_rows(model, test_name, column_name) %}
    {%- do kanon._hierarchy_model_level_only(test_name, column_name, 'perturbation table') -%}
    {%- set bigint = dbt.type_bigint() -%}
    {%- set rows -%}
    select
        cast(i as {{ bigint }}) as i,
        cast(j as {{ bigint }}) as j,
        cast(v as {{ bigint }}) as v,
        cast(p as {{ kanon._records_double() }}) as p,
        cast(key_from as {{ bigint }}) as key_from,
        cast(key_to as {{ bigint }}) as key_to
    from {{ model }}
    {%- endset -%}
    {{ return(rows) }}
{% endmacro %}

{#- Stops a ptable test whose required argument is missing, saying what to give (`hint`). -#}
{% macro _ptable_required(value, argument, hint, who) %}
    {%- if value is none -%}
        {%- do exceptions.raise_compiler_error(who ~ ": argument `" ~ argument ~ "` is required: " ~ hint) -%}
    {%- endif -%}
{% endmacro %}
