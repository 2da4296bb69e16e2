-- "Why is this cell missing?": what a published release did to each finest cell, replayed from
-- the audit trail by kanon.audit_cell_fates. PRIVATE: names thin cells; run it as the privacy
-- officer, never as a report reader. Give the report and the cells to look up, e.g.
--   dbt compile --select kanon_cell_fates --vars '{kanon_fates_report: circulation_by_branch_age_title,
--     kanon_fates_cells: "select distinct branch, age_band, title from analytics.circulation_events"}'
-- and kanon_fates_invocation for a past release (default: the latest).
{%- if var('kanon_fates_report', none) is none %}
    select 'set the vars kanon_fates_report and kanon_fates_cells' as usage
{%- else %}
    {{ kanon.audit_cell_fates(
        var('kanon_fates_report'),
        var('kanon_fates_cells'),
        var('kanon_fates_invocation', none),
    ) }}
{%- endif %}
