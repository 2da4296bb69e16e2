"""The attacker's audit of tables of n dimensions as kanon.cli_table_cells emits them
(kanon_tools.attack_report.table): flat dimensions and hierarchies mixed, per-dimension additive
flags, the tables that are not one table, the 2-D worked example through the emitted format, and
on random tables that every interval holds the true value and the screened audit finds what the
full one finds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanon_tools import attack, attack_report
from kanon_tools.attack import InconsistentTable, Key, Knowledge, Status, findings, grid, intervals
from support.attack_tables import (
    AGE,
    AREA,
    CUBE,
    DAYS,
    KINDS,
    TOTAL,
    WORKED,
    Dim,
    counts,
    emit,
    leaf,
    marks,
    one_each,
    three_d,
    worked_emitted,
)


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
