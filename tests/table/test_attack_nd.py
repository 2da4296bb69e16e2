"""The attacker's audit of tables of n dimensions as kanon.cli_table_cells emits them
(kanon_tools.attack_report.table): flat dimensions and hierarchies mixed, per-dimension additive
flags, the tables that are not one table, the 2-D worked example through the emitted format, and
on random tables that every interval holds the true value and the screened audit finds what the
full one finds."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanon_tools import attack, attack_report
from kanon_tools.attack import InconsistentTable, Key, Knowledge, Status, findings, grid, intervals

from table.test_attack import DAYS, KINDS, WORKED

TOTAL = "Total"
Node = tuple[str | None, int, str | None, frozenset[str | None]]  # label, level, parent label, leaves under it


@dataclass(frozen=True)
class Dim:
    """A dimension as the mart publishes it: flat (leaves under the total) or, with `regions`,
    leaves (level 0) under regions (level 1) under the total (level 2)."""

    name: str
    leaves: tuple[str | None, ...]
    regions: tuple[tuple[str, tuple[str | None, ...]], ...] | None = None

    @property
    def hierarchical(self) -> bool:
        return self.regions is not None

    def nodes(self) -> list[Node]:
        """Each node: label, level, parent label (None when flat or at the root), leaves under it."""
        everything = frozenset(self.leaves)
        if self.regions is None:
            return [*[(leaf, 0, None, frozenset([leaf])) for leaf in self.leaves], (TOTAL, 1, None, everything)]
        out: list[Node] = []
        for region, leaves in self.regions:
            out += [(leaf, 0, region, frozenset([leaf])) for leaf in leaves]
            out.append((region, 1, TOTAL, frozenset(leaves)))
        return [*out, (TOTAL, 2, None, everything)]

    def below(self, node: Node) -> list[Node]:
        """The node's children: the level below, under it."""
        if node[1] == 0:
            return []
        return [n for n in self.nodes() if n[1] == node[1] - 1 and (self.regions is None or n[2] == node[0])]


Event = tuple[int, tuple[str | None, ...]]  # a person and their leaf in every dimension


def key_of(nodes: Sequence[Node]) -> Key:
    return tuple(x for label, level, _, _ in nodes for x in (str(level), json.dumps(label)))


def counts(dims: Sequence[Dim], events: Sequence[Event]) -> dict[Key, int]:
    """Every cell's distinct people: those with an event under the cell's node in every dimension."""
    out: dict[Key, int] = {}
    for combo in itertools.product(*[d.nodes() for d in dims]):
        people = {who for who, leaves in events
                  if all(leaf in node[3] for leaf, node in zip(leaves, combo, strict=True))}
        out[key_of(combo)] = len(people)
    return out


def emit(dims: Sequence[Dim], events: Sequence[Event], status: Callable[[Key, int], Status], k: int,
         zeros_hidden: bool = False) -> tuple[dict[str, Any], dict[Key, int]]:
    """What kanon.cli_table_cells emits for the table of `events`, each cell hidden as `status`
    says, and the true counts."""
    truth = counts(dims, events)
    cells = []
    for combo in itertools.product(*[d.nodes() for d in dims]):
        key = key_of(combo)
        additive: list[bool | None] = []
        for i, node in enumerate(combo):
            parts = [key_of([*combo[:i], child, *combo[i + 1:]]) for child in dims[i].below(node)]
            additive.append(truth[key] == sum(truth[part] for part in parts) if parts else None)
        mark = status(key, truth[key])
        cells.append([[[label, level, parent] for label, level, parent, _ in combo],
                      truth[key] if mark is Status.PUBLISHED else None, mark.value, additive])
    emitted = {"relation": "t", "k": k, "zeros_hidden": zeros_hidden, "count_column": "people",
               "dimensions": [{"name": d.name, "hierarchical": d.hierarchical} for d in dims], "cells": cells}
    return emitted, truth


def one_each(leaf_counts: Mapping[tuple[str | None, ...], int]) -> list[Event]:
    """Events with one person per count: every total is the sum of its parts."""
    events: list[Event] = []
    for leaves, n in leaf_counts.items():
        events += [(len(events) + i, leaves) for i in range(n)]
    return events


def marks(hidden: Mapping[Key, Status]) -> Callable[[Key, int], Status]:
    return lambda key, _: hidden.get(key, Status.PUBLISHED)


def leaf(*labels: str | None) -> Key:
    return tuple(x for label in labels for x in ("0", json.dumps(label)))


# 3-D: areas under two regions under the total, and two flat dimensions
AREA = Dim("area", ("a1", "a2", "a3", "a4"), (("North", ("a1", "a2")), ("South", ("a3", "a4"))))
AGE = Dim("age", ("y1", "y2"))
KIND = Dim("kind", ("f", "g"))
CUBE = [leaf(a, y, g) for a in ("a1", "a2") for y in ("y1", "y2") for g in ("f", "g")]


def three_d(shown: Sequence[Key] = ()) -> tuple[dict[str, Any], dict[Key, int]]:
    """One primary, (a1, y1, f) = 2, in a cube of secondaries across the areas a1 and a2 of North:
    every line through a hidden cell has two, and the cube's cells can move together
    (+t on one parity, -t on the other) with every total unchanged."""
    leaf_counts: dict[tuple[str | None, ...], int] = {
        (a, y, g): 7 + 3 * i + j + 2 * m
        for i, a in enumerate(AREA.leaves) for j, y in enumerate(AGE.leaves) for m, g in enumerate(KIND.leaves)}
    leaf_counts[("a1", "y1", "f")] = 2
    hidden = {key: Status.SECONDARY for key in CUBE[1:] if key not in shown}
    hidden[CUBE[0]] = Status.PRIMARY
    return emit([AREA, AGE, KIND], one_each(leaf_counts), marks(hidden), k=5)


def test_three_dimensions_with_a_hierarchy_protected_by_a_cube() -> None:
    emitted, truth = three_d()
    cells, relations, knowledge = attack_report.table(emitted)
    assert len(cells) == 7 * 3 * 3
    # along area: the two regions and the total, 9 each; along age and kind: 7 x 3 totals each
    assert len(relations) == 3 * 9 + 2 * 21
    found = intervals(cells, relations, knowledge)
    assert set(found) == set(CUBE)
    assert findings(found.values()) == []
    assert (found[CUBE[0]].low, found[CUBE[0]].high) == pytest.approx((1, 4))
    for key, interval in found.items():
        assert interval.low - 1e-6 <= truth[key] <= (interval.high or 0) + 1e-6
    assert attack_report.audit(emitted)[1] == []


def test_three_dimensions_one_secondary_shown_is_caught() -> None:
    shown = leaf("a2", "y1", "f")
    emitted, truth = three_d(shown=[shown])  # North at (y1, f) now gives a1 away, and the rest follow
    cells, found = attack_report.audit(emitted)
    assert {f.key for f in found if f.reason == "exact"} == set(CUBE) - {shown}
    for f in found:
        assert f.low == pytest.approx(truth[f.key])
    lines = attack_report.report(cells, found, "t", 0.0)
    assert lines[0] == "t: 63 cells and totals, 7 hidden (1 primary, 6 secondary); 7 exact disclosure(s)"
    assert "  EXACT  a1 x y1 x f (primary)" in lines
    assert "  EXACT  a2 x y2 x g (secondary)" in lines


def test_describe_marks_the_total_and_the_levels_between() -> None:
    region = ("1", '"North"', "1", '"Total"', "0", '"f"')
    assert attack_report.describe(region, [2, 1, 1]) == "North (level 1) x Total (total) x f"
    assert attack_report.describe(("2", '"Total"', "0", "null", "1", '"Total"'), [2, 1, 1]) == \
        "Total (total) x NULL x Total (total)"
    # two dimensions, both flat: as before
    assert attack_report.describe(("0", '"Mon"', "1", '"Total"')) == "Mon x Total (total)"


def test_the_additive_flags_are_per_dimension() -> None:
    """Rows hold different people, so the grand total is the sum of the row totals; one person
    can be in both columns, so along the columns it is only bounded. The published total and row
    r1 then give r2's total away; read as bounded both ways it would be 9..13."""
    rows, columns = Dim("row", ("r1", "r2")), Dim("column", ("c1", "c2"))
    events = [(p, ("r1", "c1")) for p in range(10)] + [(p, ("r1", "c2")) for p in range(5, 15)]
    events += [(p, ("r2", "c1")) for p in range(100, 106)] + [(p, ("r2", "c2")) for p in range(102, 109)]
    r2_total = ("0", '"r2"', "1", '"Total"')
    emitted, truth = emit([rows, columns], events, marks({r2_total: Status.SECONDARY}), k=5)
    grand = next(cell for cell in emitted["cells"] if cell[0] == [["Total", 1, None], ["Total", 1, None]])
    assert (grand[1], grand[3], truth[r2_total]) == (24, [True, False], 9)
    [finding] = attack_report.audit(emitted)[1]
    assert (finding.key, finding.reason, finding.low) == (r2_total, "exact", pytest.approx(9))
    # the old single flag could only say bounded here (the total is not the sum of its columns)...
    grand[3] = [False, False]
    cells, relations, knowledge = attack_report.table(emitted)
    bounded = intervals(cells, relations, knowledge)
    assert findings(bounded.values()) == []
    assert (bounded[r2_total].low, bounded[r2_total].high) == pytest.approx((9, 13))
    # ... or additive both ways, which the published cells contradict
    grand[3] = [True, True]
    with pytest.raises(InconsistentTable):
        attack_report.audit(emitted)




def worked_emitted(table: Mapping[str, Sequence[int | str]]) -> dict[str, Any]:
    cells = []
    for r, row in table.items():
        for c, mark in zip([*KINDS, TOTAL], row, strict=True):
            level_r, level_c = int(r == TOTAL), int(c == TOTAL)
            status = "published" if isinstance(mark, int) else ("primary" if mark.startswith("<") else "secondary")
            cells.append([[[r, level_r, None], [c, level_c, None]], mark if isinstance(mark, int) else None, status,
                          [True if level_r else None, True if level_c else None]])
    return {"relation": "w", "k": 5, "zeros_hidden": False, "count_column": "people",
            "dimensions": [{"name": "day", "hierarchical": False}, {"name": "kind", "hierarchical": False}],
            "cells": cells}


@pytest.mark.parametrize("table", [WORKED, dict(WORKED, Tue=[38, "<5", 5, 46]), dict(WORKED, Thu=[12, 3, "<5", 17])])
def test_the_worked_example_through_the_emitted_format(table: dict[str, list[int | str]]) -> None:
    """The same findings as the grid of kanon_tools.attack, exact and narrow, under the same labels."""
    printed = {(r, c): v for r, row in table.items() for c, v in zip([*KINDS, TOTAL], row, strict=True)}
    cells, relations = grid(DAYS, KINDS, printed)
    for width in (0.0, 2.5):
        expected = [(" x ".join(f"{x} (total)" if x == TOTAL else x for x in f.key), f.reason)
                    for f in findings(intervals(cells, relations, Knowledge(k=5)).values(), width)]
        _, found = attack_report.audit(worked_emitted(table), width)
        assert sorted((attack_report.describe(f.key), f.reason) for f in found) == sorted(expected)
    if table is not WORKED:  # the weakened patterns are caught
        assert any(reason == "exact" for _, reason in expected)


def _rows_of(emitted: dict[str, Any]) -> list[list[Any]]:
    return emitted["cells"]


def _small() -> dict[str, Any]:
    leaf_counts: dict[tuple[str | None, ...], int] = {(a, y): 10 for a in AREA.leaves for y in AGE.leaves}
    return emit([AREA, AGE], one_each(leaf_counts), marks({}), k=5)[0]


def _flat_with_two_totals() -> dict[str, Any]:
    emitted = _small()
    extra = [[[nodes[0], ["All", 1, None]], count, status, additive]
             for nodes, count, status, additive in _rows_of(emitted) if nodes[1][1] == 1]
    emitted["cells"] += extra
    return emitted


def _parent_not_a_node() -> dict[str, Any]:
    emitted = _small()
    for nodes, *_ in _rows_of(emitted):
        if nodes[0][:2] == ["a1", 0]:
            nodes[0][2] = "West"
    return emitted


def _parent_changes() -> dict[str, Any]:
    emitted = _small()
    for nodes, *_ in _rows_of(emitted):
        if nodes[0][:2] == ["a1", 0] and nodes[1][0] == "y2":
            nodes[0][2] = "South"
    return emitted


def _missing() -> dict[str, Any]:
    emitted = _small()
    emitted["cells"] = [cell for cell in _rows_of(emitted) if cell[0][0][0] != "North" or cell[0][1][0] != "y2"]
    return emitted


def _twice() -> dict[str, Any]:
    emitted = _small()
    emitted["cells"].append(_rows_of(emitted)[3])
    return emitted


def _no_total() -> dict[str, Any]:
    emitted = _small()
    emitted["cells"] = [cell for cell in _rows_of(emitted) if cell[0][1][1] == 0]
    return emitted


def _two_roots() -> dict[str, Any]:
    emitted = _small()
    for nodes, *_ in _rows_of(emitted):
        if nodes[0][:2] == ["South", 1]:
            nodes[0][1:] = [2, None]
        elif nodes[0][2] == "South":
            nodes[0][1:] = [1, "South"]
    return emitted


@pytest.mark.parametrize(("broken", "message"), [
    (_twice, r"publishes the cell a2 x y1 twice"),
    (_flat_with_two_totals, r"flat dimension age has 2 total\(s\)"),
    (_no_total, r"flat dimension age has 0 total\(s\)"),
    (_parent_not_a_node, r"in area, the parent 'West' of a1 at level 0 is not a node at level 1"),
    (_parent_changes, r"in area, a1 at level 0 has the parent 'North' in one cell and 'South' in another"),
    (_missing, r"does not publish the cell North \(level 1\) x y2"),
    (_two_roots, r"hierarchy of area has 2 nodes at its top level 2"),
])
def test_tables_that_are_not_one_table(broken: Callable[[], dict[str, Any]], message: str) -> None:
    attack_report.table(_small())  # the table they break is fine
    with pytest.raises(InconsistentTable, match=message):
        attack_report.table(broken())


def test_malformed_emissions() -> None:
    with pytest.raises(InconsistentTable, match="no dimension"):
        attack_report.table(dict(_small(), dimensions=[]))
    emitted = _small()
    emitted["cells"][0][3] = [None]
    with pytest.raises(InconsistentTable, match=r"2 node\(s\) and 1 additive flag\(s\) for 2 dimension"):
        attack_report.table(emitted)
    emitted = _small()
    emitted["cells"][0][2] = "maybe"
    with pytest.raises(InconsistentTable, match="status 'maybe'"):
        attack_report.table(emitted)
    emitted = _small()
    emitted["cells"][0][0][1][2] = "Total"  # a flat dimension has no parent column
    with pytest.raises(InconsistentTable, match="in the flat dimension age, y1 at level 0 has a parent"):
        attack_report.table(emitted)
    emitted = _small()
    emitted["cells"][0] = emitted["cells"][0][:3]
    with pytest.raises(InconsistentTable, match="a cell is not"):
        attack_report.table(emitted)


@st.composite
def dimensions(draw: st.DrawFn, name: str) -> Dim:
    if draw(st.booleans()):
        leaves = tuple(f"{name}{i}" for i in range(draw(st.integers(3, 4))))
        cut = draw(st.integers(1, len(leaves) - 1))
        return Dim(name, leaves, (("R1", leaves[:cut]), ("R2", leaves[cut:])))
    labels: list[str | None] = [f"{name}{i}" for i in range(draw(st.integers(2, 3)))]
    if draw(st.booleans()):
        labels[-1] = None  # a NULL category
    return Dim(name, tuple(labels))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_tables_intervals_hold_the_truth_and_the_audit_agrees(data: st.DataObject) -> None:
    """Soundness on random tables of 2 or 3 dimensions, flat and with hierarchies, where a person
    may be in several cells (so some totals are only bounded): every interval contains the true
    value, an exact one is it, and attack.audit finds what two LPs per hidden cell find."""
    dims = [data.draw(dimensions(name)) for name in ("p", "q", "s")[:data.draw(st.integers(2, 3))]]
    leaf_choice = st.tuples(*[st.sampled_from(d.leaves) for d in dims])
    events = data.draw(st.lists(st.tuples(st.integers(0, 30), leaf_choice), min_size=10, max_size=90))
    k, zeros_hidden = data.draw(st.integers(2, 5)), data.draw(st.booleans())
    truth = counts(dims, events)
    big = sorted(key for key, value in truth.items() if value >= k)
    secondary = set(data.draw(st.lists(st.sampled_from(big), max_size=6))) if big else set()

    def status(key: Key, value: int) -> Status:
        if value < k and (value > 0 or zeros_hidden):
            return Status.PRIMARY
        return Status.SECONDARY if key in secondary else Status.PUBLISHED

    emitted, truth = emit(dims, events, status, k, zeros_hidden)
    cells, relations, knowledge = attack_report.table(emitted)
    found = intervals(cells, relations, knowledge)
    for key, interval in found.items():
        assert interval.low - 1e-6 <= truth[key] <= (interval.high if interval.high is not None else 1e9) + 1e-6
        if interval.exact:
            assert round(interval.low) == truth[key]
    width = data.draw(st.sampled_from([0.0, 2.0]))
    assert attack.audit(cells, relations, knowledge, width) == findings(found.values(), width)
