{#- `row_number() over (...)` numbering rows as ids, where which row gets which number does not
    matter, as SQL. -#}
{% macro _row_number_unordered(keys) %}
  {{ return(adapter.dispatch('_row_number_unordered', 'kanon')(keys)) }}
{% endmacro %}

{% macro default___row_number_unordered(keys) %}
  {{ return('row_number() over ()') }}
{% endmacro %}

{#- Spark requires an order, and evaluates a CTE once for each place that reads it: unordered
    numbers could differ between two reads and break the joins on them. `keys` order the rows
    totally, so every read numbers them alike. -#}
{% macro spark___row_number_unordered(keys) %}
  {{ return('row_number() over (order by ' ~ (keys | join(', ')) ~ ')') }}
{% endmacro %}
