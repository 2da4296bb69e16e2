{#- The keyword after `name as` in a WITH clause that asks the engine to materialize a CTE
    (true) or to inline it (false). -#}
{% macro _cte_materialized(materialized) %}
  {{- return(adapter.dispatch('_cte_materialized', 'kanon')(materialized)) -}}
{% endmacro %}

{% macro default___cte_materialized(materialized) -%}
  {{ return('materialized' if materialized else 'not materialized') }}
{%- endmacro %}

{#- Spark SQL has no MATERIALIZED hint on a CTE: a comment marks the CTEs a statement split into
    stages (_spark_stages) writes to a table, and those it keeps as views however often read. -#}
{% macro spark___cte_materialized(materialized) -%}
  {{ return('/*kanon:cache*/' if materialized else '/*kanon:inline*/') }}
{%- endmacro %}
