-- Suppression rate per report over time, with the policy in force. A jump right after the
-- policy fingerprint changes points at the policy (k, ladder, hierarchies); a jump without a
-- policy change points at the data (a schema change, a new catalog, a smaller population).
select
    report,
    released_at,
    policy_fingerprint,
    k,
    cells_in,
    cells_suppressed,
    people_suppressed,
    suppression_rate,
    suppression_rate - lag(suppression_rate) over (
        partition by report order by released_at
    ) as rate_change,
    policy_fingerprint <> lag(policy_fingerprint) over (
        partition by report order by released_at
    ) as policy_changed
from {{ ref('kanon', 'kanon_audit_releases') }}
where status = 'RELEASED'
order by report, released_at
