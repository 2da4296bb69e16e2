-- The latest release's decision for every cell, per report: "why is this row missing?"
-- PRIVATE: names thin cells. Run it as the privacy officer, never as a report reader.
with latest_release as (
    select
        invocation_id,
        report_unique_id,
        report,
        released_at
    from (
        select
            invocation_id,
            report_unique_id,
            report,
            released_at,
            row_number() over (
                partition by report_unique_id order by released_at desc
            ) as recency
        from {{ ref('kanon', 'kanon_audit_releases') }}
        where status = 'RELEASED'
    ) as releases
    where recency = 1
)

select
    latest_release.report,
    latest_release.released_at,
    cells.cell_labels,
    cells.people,
    cells.decision,
    cells.ladder_step,
    cells.released_labels,
    cells.released_levels,
    cells.released_people
from {{ ref('kanon', 'kanon_audit_cells') }} as cells
inner join latest_release
    on
        cells.invocation_id = latest_release.invocation_id
        and cells.report_unique_id = latest_release.report_unique_id
order by latest_release.report, cells.decision, cells.cell_labels
