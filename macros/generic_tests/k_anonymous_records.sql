{#-
  kanon.k_anonymous_records: a model-level test for record-level data (microdata extracts).
  Groups the relation by its quasi-identifier columns and fails with one row per group that
  describes fewer than k distinct privacy units: the group's keys and size, never other columns.
  Without privacy_unit every row counts as one person.
-#}
{% test k_anonymous_records(model, quasi_identifiers, k, privacy_unit=none) %}
  {{ return(adapter.dispatch('test_k_anonymous_records', 'kanon')(model, quasi_identifiers, k, privacy_unit)) }}
{% endtest %}

{% macro default__test_k_anonymous_records(model, quasi_identifiers, k, privacy_unit) %}
  {%- do kanon._check_k(k, 'kanon.k_anonymous_records') -%}
  {%- if quasi_identifiers is string or quasi_identifiers is not iterable or quasi_identifiers | length == 0 -%}
    {{ exceptions.raise_compiler_error("kanon.k_anonymous_records: quasi_identifiers must be a non-empty list of"
        ~ " column names") }}
  {%- endif -%}
  {%- set group_size = 'count(*)' if privacy_unit is none else 'count(distinct ' ~ privacy_unit ~ ')' -%}
select
  {%- for column in quasi_identifiers %}
  {{ column }},
  {%- endfor %}
  {{ group_size }} as group_size
from {{ model }}
group by {{ quasi_identifiers | join(', ') }}
having {{ group_size }} < {{ k }}
{% endmacro %}
