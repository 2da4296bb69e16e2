{#-
    kanon.ptable_zero_stays_zero (model-level, on a perturbation table)

    The count 0 has exactly one row, j = 0 and v = 0: an empty cell is never published as people
    (ptable_tiles_key_space checks that its interval is the whole key space). Fails with one row:
    n_rows (rows of i = 0; 0 when there is none), n_moved (those with j or v other than 0).
-#}
{% test ptable_zero_stays_zero(model, column_name=none) %}
    {%- set rows = kanon._ptable_rows(model, 'ptable_zero_stays_zero', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_zero_stays_zero', 'kanon')(rows)) }}
{% endtest %}

{% macro default__test_ptable_zero_stays_zero(rows) %}
    {%- set moved = 'case when j = 0 and v = 0 then 0 else 1 end' %}

with ptable_rows as (
    {{ rows }}
)

select
    cast(count(*) as {{ dbt.type_bigint() }}) as n_rows,
    cast(coalesce(sum({{ moved }}), 0) as {{ dbt.type_bigint() }}) as n_moved
from ptable_rows
where i = 0
having count(*) <> 1 or coalesce(sum({{ moved }}), 0) > 0
{% endmacro %}
