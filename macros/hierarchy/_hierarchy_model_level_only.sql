{#- The hierarchy tests judge a whole hierarchy (and the ptable tests a whole perturbation table,
    `relation` says which): listed under a column, they say so and stop. -#}
{% macro _hierarchy_model_level_only(test_name, column_name, relation='hierarchy') %}
    {%- if column_name is not none -%}
        {%- do exceptions.raise_compiler_error(
            "kanon." ~ test_name ~ " is a model-level test: list it under the " ~ relation ~ "'s "
            ~ "data_tests, not under a column (got column_name=" ~ column_name ~ ")"
        ) -%}
    {%- endif -%}
{% endmacro %}
