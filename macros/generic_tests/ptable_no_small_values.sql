{#-
    kanon.ptable_no_small_values (model-level, on a perturbation table)

    No count is published as 1..js: no row has j in 1..js, and the last count (imax, whose rows
    every larger count n takes as n + v) has no row with j = 0, which would publish imax + 1 as 1.
    With js >= k - 1 no released value falls in 1..k-1. Failing rows, one per offending count: i,
    n_small_values (its rows that publish, or lead a larger count to publish, a value in 1..js).
-#}
{% test ptable_no_small_values(model, js=none, column_name=none) %}
    {%- set who = kanon._who('kanon.ptable_no_small_values') -%}
    {%- do kanon._ptable_required(js, 'js', 'no published value may fall in 1..js (k - 1 or more)', who) -%}
    {%- do kanon._check_whole_number(js, 'js', who, minimum=0) -%}
    {%- set rows = kanon._ptable_rows(model, 'ptable_no_small_values', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_no_small_values', 'kanon')(rows, js)) }}
{% endtest %}

{% macro default__test_ptable_no_small_values(rows, js) %}

with ptable_rows as (
    {{ rows }}
),

largest as (
    select max(i) as imax from ptable_rows
)

select
    ptable_rows.i,
    cast(count(*) as {{ dbt.type_bigint() }}) as n_small_values
from ptable_rows
cross join largest
where
    ptable_rows.j between 1 and {{ js }}
    {%- if js >= 1 %}
    or (ptable_rows.i = largest.imax and ptable_rows.j = 0)
    {%- endif %}
group by ptable_rows.i
{% endmacro %}
