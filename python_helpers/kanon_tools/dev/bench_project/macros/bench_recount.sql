{#- The floor plus the one recount in distinct people any release of a branch x age band x title
    report must do: the events of the cells below k, counted again one level up the title
    hierarchy. One definition for every report with those dimensions. -#}
{% macro bench_recount(events, hierarchy_title) %}
with cells as (
    select
        branch,
        age_band,
        title,
        count(distinct patron_token) as people
    from {{ events }}
    group by branch, age_band, title
),

thin_events as (
    select
        e.patron_token,
        e.branch,
        e.age_band,
        e.title
    from {{ events }} as e
    inner join cells as c
        on e.branch = c.branch and e.age_band = c.age_band and e.title = c.title
    where c.people < {{ var('bench_k') }}
)

select
    branch,
    age_band,
    title,
    people
from cells
where people >= {{ var('bench_k') }}
union all
select
    t.branch,
    t.age_band,
    h.level_1 as title,
    count(distinct t.patron_token) as people
from thin_events as t
inner join {{ hierarchy_title }} as h on t.title = h.level_0
group by t.branch, t.age_band, h.level_1
{% endmacro %}
