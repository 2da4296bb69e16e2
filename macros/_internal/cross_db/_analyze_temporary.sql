{#- `analyze <relation>` where the warehouse plans from statistics it does not gather by itself,
    else nothing: run after a search creates or fills a temporary table. -#}
{% macro _analyze_temporary(relation) %}
  {{ return(adapter.dispatch('_analyze_temporary', 'kanon')(relation)) }}
{% endmacro %}

{% macro default___analyze_temporary(relation) %}
  {{ return('') }}
{% endmacro %}

{#- Postgres: autovacuum never analyzes temporary tables, so without this the planner guesses
    their sizes (a thousand-odd rows) and the table search's joins over them plan as if they
    were tiny. -#}
{% macro postgres___analyze_temporary(relation) %}
  {{ return('analyze ' ~ relation) }}
{% endmacro %}
