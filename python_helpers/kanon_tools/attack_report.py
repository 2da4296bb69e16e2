"""The attacker's audit of a published table with totals, as a release gate after `dbt build`.

    python -m kanon_tools attack --report table_worked [--protection 2]

Reads only what the table publishes, through `dbt run-operation kanon.cli_table_cells`
(macros/cli/) in a dbt project that has kanon (--project-dir, --profiles-dir and --target as for
`audit`): every cell and total with its published count or its mark, whether each total is
additive, k and whether zeros are hidden. It then asks kanon_tools.attack, for every hidden cell,
for the lowest and highest value consistent with all of it (scipy's HiGHS), independently of the
SQL that chose the pattern.

Prints counts and the keys (labels) of the cells found, never a hidden value or an interval (an
interval would narrow a hidden value down). Exit codes: 0 no hidden cell can be worked out
exactly (and, with --protection W, every interval is at least W wide); 1 a finding, a table
that contradicts itself, or no project, database or such table, in one line; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from typing import Any

from kanon_tools.attack import (
    Cell,
    Finding,
    InconsistentTable,
    Key,
    Knowledge,
    Relation,
    Status,
)
from kanon_tools.attack import audit as lp_audit
from kanon_tools.audit import _operation, add_dbt_options
from kanon_tools.cli_types import finite_number

COMMAND = "attack"
MACRO = "kanon.cli_table_cells"


def _side(level: int, label: str | None) -> tuple[str, str]:
    """One side of a cell's key: its level and its label as JSON (NULL and a real 'Total' apart)."""
    return str(level), json.dumps(label)


def table(emitted: Mapping[str, Any]) -> tuple[dict[Key, Cell], list[Relation], Knowledge]:
    """What a reader of the published table knows, from what kanon.cli_table_cells emitted: the
    cells (published counts, hidden marks), every line's relation to its total, and the marks' meaning."""
    cells: dict[Key, Cell] = {}
    additive: dict[Key, bool] = {}
    for row_label, row_level, column_label, column_level, count, status, is_additive in emitted["cells"]:
        key = (*_side(row_level, row_label), *_side(column_level, column_label))
        if key in cells:
            raise InconsistentTable(f"the table publishes the cell {describe(key)} twice")
        cells[key] = Cell(None if count is None else int(count), Status(status))
        if is_additive is not None:
            additive[key] = bool(is_additive)
    rows = sorted({key[:2] for key in cells if key[0] == "0"})
    columns = sorted({key[2:] for key in cells if key[2] == "0"})
    row_totals = sorted({key[:2] for key in cells if key[0] == "1"})
    column_totals = sorted({key[2:] for key in cells if key[2] == "1"})
    relations: list[Relation] = []
    if rows and columns:
        if len(row_totals) != 1 or len(column_totals) != 1:
            raise InconsistentTable("the table does not have one total row and one total column")
        total_row, total_column = row_totals[0], column_totals[0]
        for r in [*rows, total_row]:
            total = (*r, *total_column)
            relations.append(Relation(total, tuple((*r, *c) for c in columns), additive.get(total, False)))
        for c in [*columns, total_column]:
            total = (*total_row, *c)
            relations.append(Relation(total, tuple((*r, *c) for r in rows), additive.get(total, False)))
    knowledge = Knowledge(k=int(emitted["k"]), zeros_shown=not emitted.get("zeros_hidden", False))
    return cells, relations, knowledge


def describe(key: Key) -> str:
    """A cell's labels for a person: `Mon x Saves`, a total line's label marked `(total)`."""
    def side(level: str, label: str) -> str:
        text = json.loads(label)
        shown = "NULL" if text is None else str(text)
        return f"{shown} (total)" if level == "1" else shown

    return f"{side(key[0], key[1])} x {side(key[2], key[3])}"


def audit(emitted: Mapping[str, Any], protection: float = 0.0) -> tuple[dict[Key, Cell], list[Finding]]:
    cells, relations, knowledge = table(emitted)
    return cells, lp_audit(cells, relations, knowledge, min_width=protection)


def report(cells: Mapping[Key, Cell], found: Sequence[Finding], relation: str, protection: float) -> list[str]:
    """The lines printed: counts, then each finding's labels and reason (no value, no interval)."""
    hidden = [cell for cell in cells.values() if cell.value is None]
    primary = sum(1 for cell in hidden if cell.status is Status.PRIMARY)
    exact = [f for f in found if f.reason == "exact"]
    narrow = [f for f in found if f.reason == "narrow"]
    lines = [f"{relation}: {len(cells)} cells and totals, {len(hidden)} hidden ({primary} primary, "
             f"{len(hidden) - primary} secondary); {len(exact)} exact disclosure(s)"
             + (f", {len(narrow)} narrower than {protection:g}" if protection else "")]
    lines += [f"  {f.reason.upper():<6} {describe(f.key)} ({f.status.value})" for f in found]
    return lines


_protection = finite_number(0.0, None, "a width of at least 0 (in people)")


def run_attack(args: argparse.Namespace) -> int:
    emitted = _operation(args, COMMAND, MACRO, {"report": args.report})
    try:
        cells, found = audit(emitted, args.protection)
    except InconsistentTable as exc:
        print(f"kanon {COMMAND}: {args.report} contradicts itself: {exc}", file=sys.stderr)
        return 1
    for line in report(cells, found, str(emitted["relation"]), args.protection):
        print(line)
    if found:
        print(f"FAIL: {len(found)} hidden cell(s) of {args.report} can be worked out "
              + ("exactly" if all(f.reason == "exact" for f in found) else "too closely")
              + " from what it publishes", file=sys.stderr)
        return 1
    print(f"OK: no hidden cell of {args.report} can be worked out exactly from what it publishes"
          + (f", and every one is at least {args.protection:g} wide" if args.protection else ""))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        COMMAND, help="audit a published table with totals as an attacker would (LP): exit 1 on a disclosure",
        description="Read a table released by kanon.release_table (through `dbt run-operation "
                    "kanon.cli_table_cells`) and find, by linear programming, every hidden cell's feasible "
                    "interval from what is published. Prints counts and labels only.")
    parser.add_argument("--report", required=True, help="the released model's name, e.g. table_worked")
    parser.add_argument("--protection", type=_protection, default=0.0,
                        help="also fail when a hidden cell's interval is narrower than this (in people; default 0)")
    add_dbt_options(parser)
    parser.set_defaults(func=run_attack)
