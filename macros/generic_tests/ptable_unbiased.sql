{#-
    kanon.ptable_unbiased (model-level, on a perturbation table)

    Each count's mean perturbation is 0: sum(p * v) within `tolerance`, with p the interval's
    share of the key space, (key_to - key_from) / 2^32, the probability a release applies
    (ptable_probabilities_sum_to_one checks the p column says the same). The sum is taken in
    integers, sum((key_to - key_from) * v), before the one division: `tolerance: 0` asks for a
    mean of exactly 0, which `python -m kanon_tools ptable` gives wherever whole widths can.
    Failing rows, one per offending count: i, mean_perturbation.
-#}
{% test ptable_unbiased(model, tolerance=0.000001, column_name=none) %}
    {%- do kanon._check_number(tolerance, 'tolerance', kanon._who('kanon.ptable_unbiased'), minimum=0) -%}
    {%- set rows = kanon._ptable_rows(model, 'ptable_unbiased', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_unbiased', 'kanon')(rows, tolerance)) }}
{% endtest %}

{% macro default__test_ptable_unbiased(rows, tolerance) %}
    {%- set double = kanon._records_double() %}

with ptable_rows as (
    {{ rows }}
),

per_count as (
    select
        i,
        cast(sum((key_to - key_from) * v) as {{ double }})
        / cast({{ kanon._noise_key_space() }} as {{ double }}) as mean_perturbation
    from ptable_rows
    group by i
)

select
    i,
    mean_perturbation
from per_count
where
    mean_perturbation is null
    or abs(mean_perturbation) > cast({{ tolerance }} as {{ double }})
{% endmacro %}
