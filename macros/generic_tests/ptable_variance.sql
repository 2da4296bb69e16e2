{#-
    kanon.ptable_variance (model-level, on a perturbation table)

    Each count's variance of v, sum(p * v^2) - (sum(p * v))^2 with p the interval's share of the
    key space, is the declared `variance` within `tolerance`. The count 0 is left out (zeros stay
    zero: ptable_zero_stays_zero). Counts whose allowed values cannot have the variance (small
    counts near js; `python -m kanon_tools ptable` prints them) come back with the variance they
    have, so they are seen, not hidden: accept them with `config: {severity: warn}` or a `where`
    such as `i > 4` on the test.
    Failing rows, one per offending count: i, achieved_variance.
-#}
{% test ptable_variance(model, variance=none, tolerance=0.000001, column_name=none) %}
    {%- set who = kanon._who('kanon.ptable_variance') -%}
    {%- do kanon._ptable_required(variance, 'variance', 'the variance the table was made with (--variance)', who) -%}
    {%- do kanon._check_number(variance, 'variance', who, minimum=0, exclusive=true) -%}
    {%- do kanon._check_number(tolerance, 'tolerance', who, minimum=0) -%}
    {%- set rows = kanon._ptable_rows(model, 'ptable_variance', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_variance', 'kanon')(rows, variance, tolerance)) }}
{% endtest %}

{% macro default__test_ptable_variance(rows, variance, tolerance) %}
    {%- set double = kanon._records_double() -%}
    {%- set space = 'cast(' ~ kanon._noise_key_space() ~ ' as ' ~ double ~ ')' %}

with ptable_rows as (
    {{ rows }}
),

moments as (
    select
        i,
        cast(sum((key_to - key_from) * v) as {{ double }}) / {{ space }} as mean_v,
        cast(sum((key_to - key_from) * v * v) as {{ double }}) / {{ space }} as mean_square
    from ptable_rows
    where i is null or i > 0
    group by i
),

per_count as (
    select
        i,
        mean_square - mean_v * mean_v as achieved_variance
    from moments
)

select
    i,
    achieved_variance
from per_count
where
    achieved_variance is null
    or abs(achieved_variance - cast({{ variance }} as {{ double }})) > cast({{ tolerance }} as {{ double }})
{% endmacro %}
