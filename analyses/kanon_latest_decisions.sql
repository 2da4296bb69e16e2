-- The latest release's decision for every cell, per report: "why is this row missing?"
-- PRIVATE: names thin cells. Run it as the privacy officer, never as a report reader.
with latest as (
    select
        report_unique_id,
        max(released_at) as released_at
    from {{ ref('kanon', 'kanon_audit_releases') }}
    where status = 'RELEASED'
    group by report_unique_id
)

select
    cells.report,
    cells.released_at,
    cells.cell_labels,
    cells.people,
    cells.decision,
    cells.ladder_step,
    cells.released_labels,
    cells.released_levels,
    cells.released_people
from {{ ref('kanon', 'kanon_audit_cells') }} as cells
inner join latest
    on
        cells.report_unique_id = latest.report_unique_id
        and cells.released_at = latest.released_at
order by cells.report, cells.decision, cells.cell_labels
