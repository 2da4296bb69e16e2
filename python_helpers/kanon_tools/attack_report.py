"""The attacker's audit of a published table with totals, as a release gate after `dbt build`.

    python -m kanon_tools attack --report table_worked [--protection 2]

Reads only what the table publishes, through `dbt run-operation kanon.cli_table_cells`
(macros/cli/) in a dbt project that has kanon (--project-dir, --profiles-dir and --target as for
`audit`): every cell of any number of dimensions (each flat, its categories under one total, or
with a hierarchy, leaves under the nodes above them up to the total) with its published count
or its mark, whether each total is additive along each dimension, k and whether zeros are
hidden. It then asks kanon_tools.attack, for every hidden cell, for the lowest and highest value
consistent with all of it (scipy's HiGHS), independently of the SQL that chose the pattern.

Linked reports (issue 12, overlapping slices):

    python -m kanon_tools attack --report by_day_kind --report by_day_branch [--protection 2]

Tables released from the same events that share dimensions share their margins: by_day_kind's
(Mon, Total) and by_day_branch's (Mon, Total) are both the people of Monday, and an attacker
reads them together. So, given several reports, the audit solves them as one system: each
report's cells and relations as above, and a cell of one report and a cell of another are one
unknown when they count the same people, that is when they agree on every dimension both have
(same name, in any case; same level and label) and each is at its total in every dimension the
other lacks. A dimension at its top level counts everyone, as a dimension a report lacks does:
so each cell is keyed by the (name, level, label) of its dimensions not at their top (`canonical`),
and cells of different reports with one key are one quantity (within a report the keys are
unique). A quantity one report publishes is known to the attacker of every other; two reports
publishing it with different counts, or one publishing a count another's mark rules out, were
not released from the same events (exit 1). A quantity hidden in several is held to every
report's mark and k at once, and to the widest protection width among them (--protection when
wider). Findings name every report and cell the quantity is, never a value. One report is
audited exactly as before.

Prints counts and the keys (labels) of the cells found, never a hidden value or an interval (an
interval would narrow a hidden value down). Exit codes: 0 no hidden cell can be worked out
exactly (and, with --protection W, every interval is at least W wide); 1 a finding, a table
that contradicts itself, reports that disagree, or no project, database or such table, in one
line; 2 bad arguments, or a table released with noise (its values are perturbed and its totals
not additive: the audit does not apply to it).
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kanon_tools.attack import (
    Bounds,
    Cell,
    Finding,
    InconsistentTable,
    Key,
    Knowledge,
    Relation,
    Status,
)
from kanon_tools.attack import audit as lp_audit
from kanon_tools.audit import cli_operation

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


def width(emitted: Mapping[str, Any], asked: float) -> float:
    """The width to audit: the one asked for, or the wider one the release promised
    (release_table's protection, recorded in the model's config)."""
    promised = emitted.get("protection")
    return max(asked, float(promised)) if isinstance(promised, (int, float)) else asked


def canonical(names: Sequence[str], tops: Sequence[int], key: Key) -> Key:
    """A cell as a quantity whatever report publishes it: (name in lower case, level, JSON label)
    of each of its dimensions not at its top level `tops[i]`, in order of name. A dimension at its
    top counts everyone, as one the report lacks does, so it drops out: cells of two reports of
    the same events with the same canonical key count the same people."""
    sides = sorted((name.lower(), key[2 * i], key[2 * i + 1])
                   for i, name in enumerate(names) if int(key[2 * i]) != tops[i])
    return tuple(x for side in sides for x in side)


@dataclass(frozen=True)
class LinkedReport:
    """One report of a linked audit: its name, cells (by its own keys), top levels, marks' meaning
    and the protection width it is held to."""

    name: str
    cells: dict[Key, Cell]
    tops: list[int]
    knowledge: Knowledge
    width: float


@dataclass(frozen=True)
class Linked:
    """Several reports of the same events as one system, every quantity by its canonical key: what
    is published anywhere (a quantity published in one report is known in all), each hidden
    quantity's bounds (every report's marks at once) and protection width (the widest), and
    where each quantity is published (report index and key there), to name it."""

    reports: list[LinkedReport]
    cells: dict[Key, Cell]
    relations: list[Relation]
    limits: dict[Key, Bounds]
    widths: dict[Key, float]
    where: dict[Key, list[tuple[int, Key]]]

    def describe(self, quantity: Key) -> str:
        """Every report and cell a quantity is: `A: Thu x Total (total) (primary) = B: ...`."""
        return " = ".join(f"{self.reports[i].name}: {describe(key, self.reports[i].tops)} "
                          f"({self.reports[i].cells[key].status.value})" for i, key in self.where[quantity])


def _intersect(bounds: Iterable[Bounds]) -> Bounds:
    """What several marks of one quantity allow at once (it may be empty: low > high)."""
    lows, highs = zip(*bounds, strict=True)
    finite = [high for high in highs if high is not None]
    return max(lows), (min(finite) if finite else None)


def _fits(value: int, bounds: Bounds) -> bool:
    return bounds[0] <= value and (bounds[1] is None or value <= bounds[1])


def link(emitted: Sequence[Mapping[str, Any]], names: Sequence[str] | None = None,
         protection: float = 0.0) -> Linked:
    """What a reader of all the reports knows, as one system (see the module doc). `names` name
    the reports in messages (default: their relations); each is held to `protection` or the wider
    width it promised (`width`). Raises InconsistentTable when a report is not one table, or when
    the reports disagree on a quantity they share."""
    if not emitted:
        raise ValueError("no report to audit")
    names = [str(one["relation"]) for one in emitted] if names is None else list(names)
    reports: list[LinkedReport] = []
    relations: dict[Relation, None] = {}  # in order, once: a shared margin's relation is in every report
    where: dict[Key, list[tuple[int, Key]]] = {}
    for i, (one, name) in enumerate(zip(emitted, names, strict=True)):
        try:
            cells, own, knowledge = table(one)
        except InconsistentTable as exc:
            raise InconsistentTable(f"{name} contradicts itself: {exc}") from None
        dimensions = [dimension for dimension, _ in _dimension_names(one)]
        if len({dimension.lower() for dimension in dimensions}) != len(dimensions):
            raise InconsistentTable(f"{name} has dimensions whose names differ only in case, which another report's "
                                    f"cannot be matched to: {', '.join(dimensions)}")
        tops = _tops(cells)
        to = {key: canonical(dimensions, tops, key) for key in cells}
        for key in cells:
            where.setdefault(to[key], []).append((i, key))
        for relation in own:
            relations.setdefault(Relation(to[relation.total], tuple(to[part] for part in relation.parts),
                                          relation.additive))
        reports.append(LinkedReport(name, cells, tops, knowledge, width(one, protection)))
    merged: dict[Key, Cell] = {}
    limits: dict[Key, Bounds] = {}
    widths: dict[Key, float] = {}
    disagree: list[Key] = []
    for quantity in sorted(where):
        places = [(reports[i], reports[i].cells[key]) for i, key in where[quantity]]
        counts = {cell.value for _, cell in places if cell.value is not None}
        marks = [member.knowledge.bounds(cell.status) for member, cell in places if cell.value is None]
        bounds = _intersect(marks) if marks else None
        if len(counts) > 1 or (bounds is not None and (
                (bounds[1] is not None and bounds[0] > bounds[1]) or any(not _fits(n, bounds) for n in counts))):
            disagree.append(quantity)  # two counts, marks that exclude each other, or a count a mark rules out
        elif counts:
            merged[quantity] = Cell(counts.pop(), Status.PUBLISHED)
        elif bounds is not None:
            primary = any(cell.status is Status.PRIMARY for _, cell in places)
            merged[quantity] = Cell(None, Status.PRIMARY if primary else Status.SECONDARY)
            limits[quantity] = bounds
            widths[quantity] = max(member.width for member, _ in places)
    linked = Linked(reports, merged, list(relations), limits, widths, where)
    if disagree:
        others = f" (and {len(disagree) - 1} other quantit{'y' if len(disagree) == 2 else 'ies'})" \
            if len(disagree) > 1 else ""
        raise InconsistentTable(f"the reports disagree on {linked.describe(disagree[0])}{others}: "
                                "not released from the same events")
    return linked


def audit_many(emitted: Sequence[Mapping[str, Any]], protection: float = 0.0,
               names: Sequence[str] | None = None) -> tuple[Linked, list[Finding]]:
    """The attacker's audit of several reports at once (`link`), findings keyed by quantity. Solved
    at the widest width any hidden quantity is held to, then a narrow finding kept only when
    narrower than its own (a cell settled at a wider width is settled at a narrower one)."""
    linked = link(emitted, names, protection)
    knowledge = Knowledge(k=max(one.knowledge.k for one in linked.reports))  # every bound is in limits
    try:
        found = lp_audit(linked.cells, linked.relations, knowledge, min_width=max(linked.widths.values(), default=0.0),
                         limits=linked.limits)
    except InconsistentTable as exc:
        raise InconsistentTable(f"{', '.join(one.name for one in linked.reports)} together: {exc}") from None
    return linked, [f for f in found if f.reason == "exact" or (
        f.high is not None and f.high - f.low < linked.widths[f.key])]


def _widths(linked: Linked) -> str:
    """The protection width(s) the hidden quantities are held to, for a person ('' when none)."""
    held = sorted(set(linked.widths.values()) - {0.0})
    if not held:
        return ""
    if len(held) == 1 and len(set(linked.widths.values())) == 1:
        return f"{held[0]:g}"
    return "its reports' widest (" + ", ".join(f"{one.name} {one.width:g}" for one in linked.reports) + ")"


def report_many(linked: Linked, found: Sequence[Finding]) -> list[str]:
    """The lines printed for linked reports: each report's counts, the linked system's, then each
    finding's reports, labels and marks (no value, no interval)."""
    lines = []
    for one in linked.reports:
        hidden = [cell for cell in one.cells.values() if cell.value is None]
        primary = sum(1 for cell in hidden if cell.status is Status.PRIMARY)
        lines.append(f"{one.name}: {len(one.cells)} cells and totals, {len(hidden)} hidden ({primary} primary, "
                     f"{len(hidden) - primary} secondary)")
    shared = sum(1 for places in linked.where.values() if len(places) > 1)
    hidden_anywhere = sum(1 for places in linked.where.values()
                          if any(linked.reports[i].cells[key].value is None for i, key in places))
    exact = sum(1 for f in found if f.reason == "exact")
    held = _widths(linked)
    lines.append(f"linked: {len(linked.cells)} quantities ({shared} in more than one report), {len(linked.limits)} "
                 f"hidden in every report that has them ({hidden_anywhere - len(linked.limits)} hidden in one and "
                 f"published in another); {exact} exact disclosure(s)"
                 + (f", {len(found) - exact} narrower than {held}" if held else ""))
    lines += [f"  {f.reason.upper():<6} {linked.describe(f.key)}" for f in found]
    return lines


def _run_one(args: argparse.Namespace, name: str, emitted: Mapping[str, Any]) -> tuple[int, list[Finding] | None]:
    """One report: its own audit, as before linked reports. The exit code, and the findings (None
    when the table contradicts itself)."""
    protection = width(emitted, args.protection)
    try:
        cells, found = audit(emitted, protection)
    except InconsistentTable as exc:
        print(f"kanon {COMMAND}: {name} contradicts itself: {exc}", file=sys.stderr)
        return 1, None
    return _verdict(report(cells, found, str(emitted["relation"]), protection), found, "cell(s)", name,
                    "what it publishes", f"{protection:g}" if protection else ""), list(found)


def _verdict(lines: Sequence[str], found: Sequence[Finding], what: str, subject: str, source: str, held: str) -> int:
    """Prints the report's lines and its verdict (FAIL on stderr): the exit code."""
    for line in lines:
        print(line)
    if found:
        print(f"FAIL: {len(found)} hidden {what} of {subject} can be worked out "
              + ("exactly" if all(f.reason == "exact" for f in found) else "too closely")
              + f" from {source}", file=sys.stderr)
        return 1
    print(f"OK: no hidden cell of {subject} can be worked out exactly from {source}"
          + (f", and every one is at least {held} wide" if held else ""))
    return 0


def _run_linked(args: argparse.Namespace, names: Sequence[str], emitted: Sequence[Mapping[str, Any]],
                ) -> tuple[int, list[Finding] | None]:
    """Several reports: one audit of what they publish together."""
    together = ", ".join(names)
    try:
        linked, found = audit_many(emitted, args.protection, names)
    except InconsistentTable as exc:
        print(f"kanon {COMMAND}: {exc}", file=sys.stderr)
        return 1, None
    return _verdict(report_many(linked, found), found, "quantity" if len(found) == 1 else "quantities", together,
                    "what they publish together", _widths(linked)), list(found)


def verdict_record(names: Sequence[str], protection: float, found: Sequence[Finding] | None) -> dict[str, Any]:
    """What `attack --verdict FILE` writes, for `report --attack FILE`: the reports audited together,
    when, the width held to, and how many hidden cells could be worked out: counts only."""
    return {"command": COMMAND, "reports": list(names), "protection": protection,
            "audited_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
            "verdict": "INCONSISTENT" if found is None else ("FAIL" if found else "OK"),
            "found": None if found is None else len(found),
            "exact": None if found is None else sum(1 for f in found if f.reason == "exact")}


def run_attack(args: argparse.Namespace) -> int:
    names = list(dict.fromkeys(args.report))  # a report named twice is read once
    emitted = [cli_operation(args, COMMAND, MACRO, {"report": name}) for name in names]
    noisy = [name for name, table in zip(names, emitted, strict=True) if table.get("noisy")]
    if noisy:  # its linear programs take published values as exact and totals as bounded by their parts
        print(f"kanon {COMMAND}: {', '.join(noisy)} is released with noise (cell_key): its published values are "
              "perturbed and its totals are not the sum of their parts, so the LP audit does not apply "
              "(docs/reference/noise.md, \"Tables with totals\")", file=sys.stderr)
        return 2
    code, found = _run_one(args, names[0], emitted[0]) if len(names) == 1 else _run_linked(args, names, emitted)
    if getattr(args, "verdict", None):
        try:
            Path(args.verdict).write_text(json.dumps(verdict_record(names, args.protection, found)) + "\n")
        except OSError as exc:
            raise SystemExit(f"kanon {COMMAND}: cannot write {args.verdict}: {exc.strerror or exc}") from None
    return code
