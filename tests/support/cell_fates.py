"""Per-cell fates of a past release, derived from the compact audit trail by the package's own
macro (kanon.audit_cell_fates), as a privacy officer would: compiled by dbt, run on the warehouse."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from support.projects import DbtProject
from support.warehouses import Warehouse

FATE_COLUMNS = ("cell_labels", "decision", "ladder_step", "released_labels", "released_levels", "released_people")
# Between two compiled replays in one `dbt compile --inline` (a SQL comment, kept by dbt).
_BOUNDARY = "-- kanon test: next replay"


@dataclass(frozen=True)
class Replay:
    """One call of kanon.audit_cell_fates: the report, its cells (a select), and optionally the
    release's invocation and the column of `cells` holding each cell's people in the release."""

    report: str
    cells_sql: str
    invocation: str | None = None
    people: str | None = None

    def call(self) -> str:
        args = [json.dumps(self.report), json.dumps(self.cells_sql)]
        if self.invocation:
            args.append("invocation_id=" + json.dumps(self.invocation))
        if self.people:
            args.append("people=" + json.dumps(self.people))
        return "{{ kanon.audit_cell_fates(" + ", ".join(args) + ") }}"


def cell_fates(project: DbtProject, report: str, cells_sql: str, invocation: str | None = None,
               people: str | None = None) -> list[dict[str, Any]]:
    """One dict per row of `cells_sql` (its columns, then FATE_COLUMNS) for the report's latest
    release, or the release of `invocation`."""
    return cell_fates_of(project, [Replay(report, cells_sql, invocation, people)])[0]


def compiled_replays(project: DbtProject, replays: Sequence[Replay]) -> list[str]:
    """The SQL of several replays, compiled by one dbt invocation (each costs seconds)."""
    inline = f"\n{_BOUNDARY}\n".join(replay.call() for replay in replays)
    output = project.run("compile", "--quiet", "--inline", inline).output
    sqls = output.split(_BOUNDARY)
    assert len(sqls) == len(replays), output[-3000:]
    return sqls


def cell_fates_of(project: DbtProject, replays: Sequence[Replay]) -> list[list[dict[str, Any]]]:
    """cell_fates of each replay, compiled together."""
    sqls = compiled_replays(project, replays)  # before connecting: a DuckDB file takes one writer
    return [fetch_fates(project.warehouse, sql) for sql in sqls]


def fetch_fates(warehouse: Warehouse, sql: str) -> list[dict[str, Any]]:
    """The rows of a compiled replay, one dict each."""
    conn = warehouse.connect()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        columns = [d[0] for d in cur.description]
        return [dict(zip(columns, row, strict=True)) for row in cur.fetchall()]
    finally:
        conn.close()
