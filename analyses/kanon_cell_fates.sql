-- "Why is this cell missing?": what a published release did to each finest cell, replayed from
-- the audit trail by kanon.audit_cell_fates. PRIVATE: names thin cells; run it as the privacy
-- officer, never as a report reader. Give the report and the cells to look up, with each cell's
-- people as the release counted them (distinct non-NULL persons, within its delay), e.g.
--   dbt compile --select kanon_cell_fates --vars '{kanon_fates_report: circulation_by_branch_age_title,
--     kanon_fates_people: people, kanon_fates_cells: "select branch, age_band, title,
--     count(distinct patron_token) as people from analytics.circulation_events group by 1, 2, 3"}'
-- kanon_fates_invocation for a past release (default: the latest), and kanon_fates_people left
-- out when the cells have no such column (every cell is then taken as one the release held).
{%- if var('kanon_fates_report', none) is none %}
    select 'set the vars kanon_fates_report and kanon_fates_cells' as usage
{%- else %}
    {{ kanon.audit_cell_fates(
        var('kanon_fates_report'),
        var('kanon_fates_cells'),
        var('kanon_fates_invocation', none),
        var('kanon_fates_people', none),
    ) }}
{%- endif %}
