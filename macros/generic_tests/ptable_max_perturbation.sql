{#-
    kanon.ptable_max_perturbation (model-level, on a perturbation table)

    No count moves by more than `max_perturbation` (|v| <= D), and every row's v is j - i (a
    release adds v; people read j). Failing rows, one per offending count: i, n_too_far (rows with
    |v| above D), n_v_not_j_minus_i (rows whose v is not j - i, or NULL).
-#}
{% test ptable_max_perturbation(model, max_perturbation=none, column_name=none) %}
    {%- set who = kanon._who('kanon.ptable_max_perturbation') -%}
    {%- do kanon._ptable_required(max_perturbation, 'max_perturbation', "the table's D (--max-perturbation)", who) -%}
    {%- do kanon._check_whole_number(max_perturbation, 'max_perturbation', who, minimum=1) -%}
    {%- set rows = kanon._ptable_rows(model, 'ptable_max_perturbation', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_max_perturbation', 'kanon')(rows, max_perturbation)) }}
{% endtest %}

{% macro default__test_ptable_max_perturbation(rows, max_perturbation) %}

with ptable_rows as (
    {{ rows }}
),

per_count as (
    select
        i,
        sum(case when abs(v) > {{ max_perturbation }} then 1 else 0 end) as n_too_far,
        sum(case when v is null or j is null or i is null or v <> j - i then 1 else 0 end) as n_v_not_j_minus_i
    from ptable_rows
    group by i
)

select
    i,
    cast(n_too_far as {{ dbt.type_bigint() }}) as n_too_far,
    cast(n_v_not_j_minus_i as {{ dbt.type_bigint() }}) as n_v_not_j_minus_i
from per_count
where n_too_far > 0 or n_v_not_j_minus_i > 0
{% endmacro %}
