{#-
    kanon.ptable_probabilities_sum_to_one (model-level, on a perturbation table)

    Each row's p is its interval's share of the key space, (key_to - key_from) / 2^32, within
    `tolerance`, and each count's p sum to 1 within `tolerance`. p is what people read; the
    intervals are what a release applies: this test keeps them saying the same.
    Failing rows, one per offending count: i, n_p_off_interval (rows whose p is NULL or not their
    interval's share), p_sum.
-#}
{% test ptable_probabilities_sum_to_one(model, tolerance=0.000000001, column_name=none) %}
    {%- do kanon._check_number(tolerance, 'tolerance', kanon._who('kanon.ptable_probabilities_sum_to_one'),
                               minimum=0) -%}
    {%- set rows = kanon._ptable_rows(model, 'ptable_probabilities_sum_to_one', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_probabilities_sum_to_one', 'kanon')(rows, tolerance)) }}
{% endtest %}

{% macro default__test_ptable_probabilities_sum_to_one(rows, tolerance) %}
    {%- set double = kanon._records_double() -%}
    {%- set space = 'cast(' ~ kanon._noise_key_space() ~ ' as ' ~ double ~ ')' -%}
    {%- set allowed = 'cast(' ~ tolerance ~ ' as ' ~ double ~ ')' %}

with ptable_rows as (
    {{ rows }}
),

per_count as (
    select
        i,
        sum(
            case
                when p is null or key_from is null or key_to is null then 1
                when abs(p - cast(key_to - key_from as {{ double }}) / {{ space }}) > {{ allowed }} then 1
                else 0
            end
        ) as n_p_off_interval,
        sum(p) as p_sum
    from ptable_rows
    group by i
)

select
    i,
    cast(n_p_off_interval as {{ dbt.type_bigint() }}) as n_p_off_interval,
    p_sum
from per_count
where
    n_p_off_interval > 0
    or p_sum is null
    or abs(p_sum - 1) > {{ allowed }}
{% endmacro %}
