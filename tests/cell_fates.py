"""Per-cell fates of a past release, derived from the compact audit trail by the package's own
macro (kanon.audit_cell_fates), as a privacy officer would: compiled by dbt, run on the warehouse."""

from __future__ import annotations

import json
from typing import Any

from conftest import DbtProject

FATE_COLUMNS = ("cell_labels", "decision", "ladder_step", "released_labels", "released_levels", "released_people")


def cell_fates(project: DbtProject, report: str, cells_sql: str, invocation: str | None = None) -> list[dict[str, Any]]:
    """One dict per row of `cells_sql` (its columns, then FATE_COLUMNS) for the report's latest
    release, or the release of `invocation`."""
    call = "{{ kanon.audit_cell_fates(" + json.dumps(report) + ", " + json.dumps(cells_sql) + \
        (", " + json.dumps(invocation) if invocation else "") + ") }}"
    sql = project.run("compile", "--quiet", "--inline", call).output
    conn = project.warehouse.connect()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    finally:
        conn.close()
