"""`python -m kanon_tools demo`: show what the example release published, after `dbt build`."""

from __future__ import annotations

import argparse
from typing import Any, Sequence

from kanon_tools.warehouse import TARGETS, connect, fetch, target

MART = "circulation_by_branch_age_title"


def format_table(columns: list[str], rows: Sequence[Sequence[Any]]) -> str:
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = [" | ".join(v.ljust(w) for v, w in zip(r, widths)) for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    tgt = target(args.target)
    conn = connect(args.target)
    try:
        mart = tgt.relation(MART, "example")
        decisions = tgt.relation(f"{MART}__decisions", "example_audit")
        columns, rows = fetch(
            conn,
            f"select * from {mart} order by title_level, age_band_level, branch_level, patrons desc, "
            f"branch, age_band, title limit {args.rows}",
        )
        print(f"\nReleased: {mart} (every row describes at least k=5 distinct patrons)\n")
        print(format_table(columns, rows))
        _, summary = fetch(
            conn,
            f"select decision, count(*), sum(patrons) from {decisions} group by decision order by decision",
        )
        _, released = fetch(conn, f"select count(*), min(patrons) from {mart}")
        print(f"\n{released[0][0]} rows released, smallest cell {released[0][1]} patrons.")
        print("Finest cells (branch x age band x title) by decision:")
        for decision, cells, patrons in summary:
            print(f"  {decision:<10} {cells:>6} cells  ({patrons} patron-cells)")
    finally:
        conn.close()
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="print what the example release published")
    parser.add_argument("--target", choices=TARGETS, default="duckdb")
    parser.add_argument("--rows", type=int, default=12, help="rows of the safe mart to show")
    parser.set_defaults(func=run)
