{#- Hands a value back to whoever ran `dbt run-operation`: one stdout line, KANON_JSON <json>
    (kanon_tools.dbt_runner reads it). print(), not log(): it reaches stdout unformatted, even
    under --quiet. `value` must hold only strings, numbers, booleans, none, lists and mappings. -#}
{% macro _cli_emit(value) %}
  {%- do print('KANON_JSON ' ~ tojson(value)) -%}
{% endmacro %}
