"""`python -m kanon_tools demo`: show what the example release published, after `dbt build`.

It only reads: the warehouse is opened read-only (a DuckDB file that is not there is refused,
never created). A bad --rows exits 2 (argparse); a missing database or example release exits 1
with one line, `kanon demo: ...`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from kanon_tools.audit import _one_line, _reading
from kanon_tools.cli_types import positive_count
from kanon_tools.warehouse import TARGETS, database_errors, fetch, target

MART = "circulation_by_branch_age_title"


def format_table(columns: list[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = [" | ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    tgt = target(args.target)
    with _reading(args.target, "demo") as conn:
        mart = tgt.relation(MART, "example")
        try:
            # a few of the largest rows at each combination of levels, coarsest last
            columns, rows = fetch(
                conn,
                "select branch, branch_level, age_band, age_band_level, title, title_level, patrons, loans from ("
                " select m.*, row_number() over (partition by branch_level, age_band_level, title_level"
                "   order by patrons desc, branch, age_band, title) as rank_in_level"
                f" from {mart} as m) as ranked where rank_in_level <= 2"
                " order by branch_level + age_band_level + title_level, branch_level, age_band_level, title_level,"
                f" rank_in_level limit {args.rows}",
            )
        except database_errors(args.target) as exc:
            raise SystemExit(f"kanon demo: cannot read the example release {mart} (build it first: make demo, "
                             f"or dbt build with this KANON_SCHEMA): {_one_line(exc)}") from None
        print(f"\nReleased: {mart} (every row describes at least k=5 distinct patrons)\n")
        print(format_table(columns, rows))
        _, released = fetch(conn, f"select count(*), min(patrons) from {mart}")
        print(f"\n{released[0][0]} rows released, smallest cell {released[0][1]} patrons.")
        # The private audit trail explains the release; the demo reads its latest entry.
        cells = tgt.relation("kanon_audit_cells", "kanon_audit")
        releases = tgt.relation("kanon_audit_releases", "kanon_audit")
        latest = (
            f"{cells} inner join (select invocation_id, report_unique_id from {releases}"
            f" where report = '{MART}' and status = 'RELEASED' order by released_at desc limit 1) as latest"
            " using (invocation_id, report_unique_id)"
        )
        _, summary = fetch(
            conn, f"select decision, count(*), sum(people) from {latest} group by decision order by decision"
        )
        print("Finest cells (branch x age band x title) by decision, from the audit trail:")
        for decision, n_cells, patrons in summary:
            print(f"  {decision:<10} {n_cells:>6} cells  ({patrons} patron-cells)")
        _, fate = fetch(
            conn,
            f"select decision, released_labels, released_people from {latest} where cell_labels = "
            """'{"branch":"RIVERSIDE","age_band":"13-17","title":"Coping With a Parent''s Incarceration"}'""",
        )
        for decision, labels, patrons in fate:
            where = (
                f"released as {' | '.join(json.loads(labels).values())} ({patrons} patrons)" if labels else "suppressed"
            )
            print(f"\nThe 1-patron cell RIVERSIDE | 13-17 | Coping With a Parent's Incarceration: {decision}, {where}.")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="print what the example release published")
    parser.add_argument("--target", choices=TARGETS, default="duckdb")
    parser.add_argument("--rows", type=positive_count, default=14,
                        help="rows of the safe mart to show: a whole number >= 1 (default %(default)s)")
    parser.set_defaults(func=run)
