{#-
  kanon.k_anonymous: a column-level test on a released table's people-count column.
  Fails with one row per released row whose count is below k, NULL, NaN or infinite: whatever
  the k_anonymous gate refuses (check min_count), by the gate's own condition (_count_below_k).
  It returns only the optional key_columns and the size (never other row data), so a failing
  test does not print or store more about the people it protects than the cell's keys.
-#}
{% test k_anonymous(model, column_name, k, key_columns=none) %}
  {{ return(adapter.dispatch('test_k_anonymous', 'kanon')(model, column_name, k, key_columns)) }}
{% endtest %}

{% macro default__test_k_anonymous(model, column_name, k, key_columns) %}
  {%- do kanon._check_k(k, 'kanon.k_anonymous') -%}
  {%- set key_columns = key_columns or [] -%}
  {%- if key_columns is string -%}
    {{ exceptions.raise_compiler_error("kanon.k_anonymous: key_columns must be a list of column names, got '"
        ~ key_columns ~ "'") }}
  {%- endif -%}
select
  {%- for column in key_columns %}
  {{ column }},
  {%- endfor %}
  {{ column_name }} as cell_size
from {{ model }}
where {{ kanon._count_below_k(column_name, k) }}
{% endmacro %}
