"""The attacker's audit of a published table with totals, as a release gate after `dbt build`.

    python -m kanon_tools attack --report table_worked [--protection 2]

Reads only what the table publishes, through `dbt run-operation kanon.cli_table_cells`
(macros/cli/) in a dbt project that has kanon (--project-dir, --profiles-dir and --target as for
`audit`): every cell of any number of dimensions (each flat, its categories under one total, or
with a hierarchy, leaves under the nodes above them up to the total) with its published count
or its mark, whether each total is additive along each dimension, k and whether zeros are
hidden. It then asks kanon_tools.attack, for every hidden cell, for the lowest and highest value
consistent with all of it (scipy's HiGHS), independently of the SQL that chose the pattern.

Prints counts and the keys (labels) of the cells found, never a hidden value or an interval (an
interval would narrow a hidden value down). Exit codes: 0 no hidden cell can be worked out
exactly (and, with --protection W, every interval is at least W wide); 1 a finding, a table
that contradicts itself, or no project, database or such table, in one line; 2 bad arguments.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
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

Node = tuple[int, str | None]  # a dimension's node: (level, label); NULL a label like any other
Side = tuple[str, str]  # a node as one dimension's part of a cell's key


@dataclass(frozen=True)
class _Dimension:
    """One dimension of the table: its nodes (each with its parent, None at the root) and their children."""

    name: str
    hierarchical: bool
    parents: dict[Node, Node | None]
    children: dict[Node, list[Node]]


def _side(node: Node) -> Side:
    """One dimension's part of a cell's key: its level and its label as JSON (NULL and a real
    'Total' apart)."""
    return str(node[0]), json.dumps(node[1])


def _order(node: Node) -> tuple[int, str]:
    return node[0], json.dumps(node[1])


def _shown(node: Node) -> str:
    return f"{'NULL' if node[1] is None else node[1]} at level {node[0]}"


def _dimension_names(emitted: Mapping[str, Any]) -> list[tuple[str, bool]]:
    dimensions = emitted.get("dimensions") or []
    if not dimensions:
        raise InconsistentTable("the table has no dimension")
    return [(str(d["name"]), bool(d["hierarchical"])) for d in dimensions]


def _row(row: Sequence[Any], n: int) -> tuple[list[tuple[Node, str | None]], int | None, Status, list[bool | None]]:
    """One emitted cell, checked for shape: its node and parent label per dimension, count,
    status and additive flags."""
    try:
        nodes, count, status, additive = row
        parts = [(label, level, parent) for label, level, parent in nodes]
    except (TypeError, ValueError):
        raise InconsistentTable(f"a cell is not [nodes, count, status, additive flags]: {row!r}") from None
    if len(parts) != n or len(additive) != n:
        raise InconsistentTable(f"a cell has {len(nodes)} node(s) and {len(additive)} additive flag(s) "
                                f"for {n} dimension(s)")
    parsed = []
    for label, level, parent in parts:
        if not isinstance(level, int) or isinstance(level, bool) or level < 0:
            raise InconsistentTable(f"a cell has the level {level!r}, not a whole number >= 0")
        parsed.append(((level, label), parent))
    try:
        mark = Status(status)
    except ValueError:
        raise InconsistentTable(f"a cell has the status {status!r}") from None
    return parsed, None if count is None else int(count), mark, list(additive)


def _structure(name: str, hierarchical: bool, seen: Mapping[Node, str | None]) -> _Dimension:
    """A dimension's tree from each node's parent label as published. Flat: the categories
    (level 0) under the one total (level 1). With a hierarchy: each node under its parent one
    level up, one root at the top level."""
    top = max(level for level, _ in seen)
    if not hierarchical:
        totals = [node for node in seen if node[0] == 1]
        if len(totals) != 1 or top > 1:
            raise InconsistentTable(f"the flat dimension {name} has {len(totals)} total(s) (level 1) "
                                    f"and levels up to {top}, not one total above its categories")
        root = totals[0]
        parents: dict[Node, Node | None] = {node: (None if node == root else root) for node in seen}
    else:
        roots = [node for node in seen if node[0] == top]
        if len(roots) != 1:
            raise InconsistentTable(f"the hierarchy of {name} has {len(roots)} nodes at its top level {top}, "
                                    "not one root")
        parents = {}
        for node, parent_label in seen.items():
            if node == roots[0] and parent_label is None:
                parents[node] = None
                continue
            above = (node[0] + 1, parent_label)
            if above not in seen:
                raise InconsistentTable(f"in {name}, the parent {parent_label!r} of {_shown(node)} "
                                        f"is not a node at level {node[0] + 1}")
            parents[node] = above
    children: dict[Node, list[Node]] = {}
    for node in sorted(parents, key=_order):
        parent = parents[node]
        if parent is not None:
            children.setdefault(parent, []).append(node)
    if hierarchical:  # a node above the leaves says something is under it
        for node in parents:
            if node[0] > 0 and node not in children:
                raise InconsistentTable(f"in {name}, {_shown(node)} has no node under it")
    return _Dimension(name, hierarchical, parents, children)


def _relations(dimensions: Sequence[_Dimension], additive: Mapping[Key, Sequence[bool | None]]) -> list[Relation]:
    """Every line of the table: along each dimension i, each node with children, every other
    coordinate fixed; additive as the total cell says along i (not said: only bounded).
    Keys are built by concatenating precomputed sides: linear in the number of cells."""
    sides = [[_side(node) for node in sorted(d.parents, key=_order)] for d in dimensions]
    relations: list[Relation] = []
    for i, dimension in enumerate(dimensions):
        before = [tuple(x for side in combo for x in side) for combo in itertools.product(*sides[:i])]
        after = [tuple(x for side in combo for x in side) for combo in itertools.product(*sides[i + 1:])]
        for node, below in sorted(dimension.children.items(), key=lambda item: _order(item[0])):
            total_side, part_sides = _side(node), [_side(child) for child in below]
            for head in before:
                for tail in after:
                    total = (*head, *total_side, *tail)
                    parts = tuple((*head, *part, *tail) for part in part_sides)
                    relations.append(Relation(total, parts, additive[total][i] is True))
    return relations


def _missing(dimensions: Sequence[_Dimension], cells: Mapping[Key, Cell]) -> str | None:
    """A combination of nodes the table does not publish, described, or None when it has all."""
    if math.prod(len(d.parents) for d in dimensions) == len(cells):
        return None  # every cell's nodes are the dimensions' nodes, and no cell is there twice
    for combo in itertools.product(*[sorted(d.parents, key=_order) for d in dimensions]):
        key = tuple(x for node in combo for x in _side(node))
        if key not in cells:
            return describe(key, [max(level for level, _ in d.parents) for d in dimensions])
    raise AssertionError("a missing cell was counted but not found")


def table(emitted: Mapping[str, Any]) -> tuple[dict[Key, Cell], list[Relation], Knowledge]:
    """What a reader of the published table knows, from what kanon.cli_table_cells emitted: the
    cells (published counts, hidden marks), every line's relation to its total, and the marks' meaning.
    A key is each dimension's (level, JSON label) in turn. Raises InconsistentTable when the cells
    are not one table: a cell twice, a node whose parent is not there or changes, a missing cell."""
    names = _dimension_names(emitted)
    knowledge = Knowledge(k=int(emitted["k"]), zeros_shown=not emitted.get("zeros_hidden", False))
    cells: dict[Key, Cell] = {}
    additive: dict[Key, list[bool | None]] = {}
    seen: list[dict[Node, str | None]] = [{} for _ in names]
    twice: Key | None = None
    sides: dict[Node, Side] = {}  # each node's side once: a table repeats its nodes in many cells
    for row in emitted["cells"]:
        nodes, count, status, flags = _row(row, len(names))
        key = tuple(x for node, _ in nodes for x in (sides.get(node) or sides.setdefault(node, _side(node))))
        if key in cells:
            twice = twice or key  # said once the top levels are known
        cells[key] = Cell(count, status)
        additive[key] = flags
        for (name, hierarchical), parents, (node, parent) in zip(names, seen, nodes, strict=True):
            if not hierarchical and parent is not None:
                raise InconsistentTable(f"in the flat dimension {name}, {_shown(node)} has a parent ({parent!r}): "
                                        "only a dimension with a hierarchy publishes one")
            if parents.setdefault(node, parent) != parent:
                raise InconsistentTable(f"in {name}, {_shown(node)} has the parent {parents[node]!r} "
                                        f"in one cell and {parent!r} in another")
    if twice is not None:
        raise InconsistentTable(f"the table publishes the cell {describe(twice, _tops(cells))} twice")
    if not cells:  # nothing published, nothing to work out
        return cells, [], knowledge
    dimensions = [_structure(name, hierarchical, parents)
                  for (name, hierarchical), parents in zip(names, seen, strict=True)]
    missing = _missing(dimensions, cells)
    if missing is not None:
        raise InconsistentTable(f"the table does not publish the cell {missing}")
    return cells, _relations(dimensions, additive), knowledge


def _tops(cells: Iterable[Key]) -> list[int]:
    """Each dimension's top level (its root's) over the cells' keys."""
    tops: list[int] = []
    for key in cells:
        levels = [int(level) for level in key[::2]]
        tops = levels if not tops else [max(a, b) for a, b in zip(tops, levels, strict=True)]
    return tops


def describe(key: Key, tops: Sequence[int] | None = None) -> str:
    """A cell's labels for a person, one per dimension: `Mon x Saves`; the total (the top level,
    `tops[i]`, 1 for every dimension when not given) marked `(total)`, a level between marked
    with its level: `RIVERSIDE x North (level 1) x Total (total)`."""
    def side(i: int, level: str, label: str) -> str:
        text = json.loads(label)
        shown = "NULL" if text is None else str(text)
        top = 1 if tops is None else tops[i]
        if level == "0":
            return shown
        return f"{shown} (total)" if int(level) == top else f"{shown} (level {level})"

    return " x ".join(side(i, key[2 * i], key[2 * i + 1]) for i in range(len(key) // 2))


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
    tops = _tops(cells) if found else []
    lines += [f"  {f.reason.upper():<6} {describe(f.key, tops)} ({f.status.value})" for f in found]
    return lines


_protection = finite_number(0.0, None, "a width of at least 0 (in people)")


def width(emitted: Mapping[str, Any], asked: float) -> float:
    """The width to audit: the one asked for, or the wider one the release promised
    (release_table's protection, recorded in the model's config)."""
    promised = emitted.get("protection")
    return max(asked, float(promised)) if isinstance(promised, (int, float)) else asked


def run_attack(args: argparse.Namespace) -> int:
    emitted = _operation(args, COMMAND, MACRO, {"report": args.report})
    args.protection = width(emitted, args.protection)
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
                        help="also fail when a hidden cell's interval is narrower than this (in people; default 0, "
                             "or the release's own protection when it promised a wider one)")
    add_dbt_options(parser)
    parser.set_defaults(func=run_attack)
