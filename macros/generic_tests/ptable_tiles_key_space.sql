{#-
    kanon.ptable_tiles_key_space (model-level, on a perturbation table)

    For each count i, the intervals [key_from, key_to) tile the key space [0, 2^32): in the order
    of key_from, the first starts at 0, each starts where the one before ended, the last ends at
    2^32, none is empty; and every count from 0 to the largest has rows. A cell key in a gap would
    publish nothing the table describes, one in an overlap two values.
    Failing rows, one per offending count: i, n_missing_counts (counts just below i with no rows),
    n_gaps, n_overlaps, n_empty (intervals with key_to <= key_from or a NULL bound),
    n_bad_bounds (0 to 2: the first bound is not 0, the last not 2^32). Rows with a NULL i come
    back as one row with i NULL.
-#}
{% test ptable_tiles_key_space(model, column_name=none) %}
    {%- set rows = kanon._ptable_rows(model, 'ptable_tiles_key_space', column_name) -%}
    {{ return(adapter.dispatch('test_ptable_tiles_key_space', 'kanon')(rows)) }}
{% endtest %}

{% macro default__test_ptable_tiles_key_space(rows) %}

with ptable_rows as (
    {{ rows }}
),

ordered as (
    select
        i,
        key_from,
        key_to,
        lag(key_to) over (partition by i order by key_from, key_to) as previous_to
    from ptable_rows
),

counts as (
    select
        i,
        i - coalesce(lag(i) over (order by i), -1) - 1 as n_missing_counts
    from (select distinct i from ptable_rows where i is not null) as found
),

per_count as (
    select
        i,
        sum(case when previous_to < key_from then 1 else 0 end) as n_gaps,
        sum(case when previous_to > key_from then 1 else 0 end) as n_overlaps,
        sum(case when key_from is null or key_to is null or key_to <= key_from then 1 else 0 end) as n_empty,
        case when min(key_from) = 0 then 0 else 1 end
        + case when max(key_to) = {{ kanon._noise_key_space() }} then 0 else 1 end as n_bad_bounds
    from ordered
    group by i
)

select
    per_count.i,
    cast(coalesce(counts.n_missing_counts, 0) as {{ dbt.type_bigint() }}) as n_missing_counts,
    cast(per_count.n_gaps as {{ dbt.type_bigint() }}) as n_gaps,
    cast(per_count.n_overlaps as {{ dbt.type_bigint() }}) as n_overlaps,
    cast(per_count.n_empty as {{ dbt.type_bigint() }}) as n_empty,
    cast(per_count.n_bad_bounds as {{ dbt.type_bigint() }}) as n_bad_bounds
from per_count
left join counts
    on per_count.i = counts.i
where
    per_count.i is null
    or counts.n_missing_counts > 0
    or per_count.n_gaps > 0
    or per_count.n_overlaps > 0
    or per_count.n_empty > 0
    or per_count.n_bad_bounds > 0
{% endmacro %}
