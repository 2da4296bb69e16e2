{#- A count release outside the k_anonymous materialization (release_counts as a plain table or
    view, release_decisions) is one statement. Spark inlines every CTE wherever it is read, and the
    engine reads its CTEs many times over, so the plan grows with the ladder: a release with a
    hierarchy ran Spark's analyzer out of memory on nine rows (ADR 10). The k_anonymous
    materialization runs it a CTE at a time; said at compile time, not after minutes of Spark. -#}
{% macro _warn_one_statement_release(who) %}
  {{ return(adapter.dispatch('_warn_one_statement_release', 'kanon')(who)) }}
{% endmacro %}

{% macro default___warn_one_statement_release(who) %}
{% endmacro %}

{% macro spark___warn_one_statement_release(who) %}
  {%- do exceptions.warn("kanon: " ~ who ~ " runs as one statement under materialized='" ~ config.get('materialized')
      ~ "'; on Spark its plan grows with the ladder until Spark's analyzer runs out of memory"
      ~ " (a hierarchy's ladder did on nine rows). Release through materialized='k_anonymous', which runs it one CTE"
      ~ " at a time.") -%}
{% endmacro %}
