"""The attacker's LP audit (kanon_tools.attack) on tables whose answer is known by hand: the
issue's worked example and its weakened pattern, the line rule, a hidden cell that is the only
link between two groups (every line has two hidden cells, yet it is disclosed), what the marks
tell, non-additive totals, and, on random tables, that every interval holds the true value."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanon_tools.attack import (
    Cell,
    InconsistentTable,
    Knowledge,
    Relation,
    Status,
    _programs,
    findings,
    grid,
    intervals,
)
from support.attack_tables import DAYS, KINDS, WORKED


def marks(table: dict[str, list[object]]) -> dict[tuple[str, str], str | int]:
    return {(r, c): v for r, row in table.items() for c, v in zip([*KINDS, "Total"], row, strict=True)
            if isinstance(v, (str, int))}


def test_worked_example_discloses_nothing() -> None:
    cells, relations = grid(DAYS, KINDS, marks(WORKED))
    found = intervals(cells, relations, Knowledge(k=5))
    assert len(found) == 6
    assert findings(found.values()) == []
    # Thu's two primaries share 17 - 12 = 5: each of them is 1..4
    assert (found[("Thu", "Saves")].low, found[("Thu", "Saves")].high) == pytest.approx((1, 4))


def test_weakened_pattern_is_caught() -> None:
    weakened = dict(WORKED, Tue=[38, "<5", 5, 46])  # one secondary removed: Tue's Saves = 46 - 38 - 5
    cells, relations = grid(DAYS, KINDS, marks(weakened))
    exact = {f.key for f in findings(intervals(cells, relations, Knowledge(k=5)).values()) if f.reason == "exact"}
    assert ("Tue", "Saves") in exact


def test_line_rule() -> None:
    table: dict[str, list[str | int]] = {"a": [10, 10, 20], "b": [10, "<5", 13], "Total": [20, 13, 33]}
    cells, relations = grid(["a", "b"], ["x", "y"], {(r, c): v for r, row in table.items()
                                                    for c, v in zip(["x", "y", "Total"], row, strict=True)})
    [finding] = findings(intervals(cells, relations, Knowledge(k=5)).values())
    assert (finding.key, finding.reason, finding.low) == (("b", "y"), "exact", pytest.approx(3))


def bridged() -> tuple[dict[tuple[str, ...], Cell], list[Relation], dict[tuple[str, str], int]]:
    """4 x 4: two blocks of four hidden cells (each line two hidden) linked by one hidden cell,
    (r1, c2): rows r0, r1 and columns c0, c1 give it as (r0 + r1) - (c0 + c1)."""
    truth = {(f"r{i}", f"c{j}"): 10 + 3 * i + j for i in range(4) for j in range(4)}
    hidden = {("r0", "c0"), ("r0", "c1"), ("r1", "c0"), ("r1", "c1"), ("r1", "c2"),
              ("r2", "c2"), ("r2", "c3"), ("r3", "c2"), ("r3", "c3")}
    return (*_table(truth, hidden, secondary=hidden), truth)


def _table(truth: dict[tuple[str, str], int], hidden: set[tuple[str, str]], secondary: set[tuple[str, str]],
           additive: bool = True) -> tuple[dict[tuple[str, ...], Cell], list[Relation]]:
    rows = sorted({r for r, _ in truth})
    columns = sorted({c for _, c in truth})
    printed: dict[tuple[str, str], str | int] = {}
    for key, value in truth.items():
        printed[key] = ("·" if key in secondary else "<5") if key in hidden else value
    for r in rows:
        printed[(r, "Total")] = sum(truth[(r, c)] for c in columns)
    for c in columns:
        printed[("Total", c)] = sum(truth[(r, c)] for r in rows)
    printed[("Total", "Total")] = sum(truth.values())
    return grid(rows, columns, printed, additive=additive)


def test_a_link_between_two_groups_is_disclosed_though_every_line_has_two_hidden_cells() -> None:
    cells, relations, truth = bridged()
    for relation in relations:  # the line rule holds everywhere
        hidden = [key for key in (relation.total, *relation.parts) if cells[key].value is None]
        assert len(hidden) != 1
    exact = findings(intervals(cells, relations, Knowledge(k=5)).values())
    assert [(f.key, f.reason) for f in exact] == [(("r1", "c2"), "exact")]
    assert exact[0].low == pytest.approx(truth[("r1", "c2")])


def test_the_marks_are_knowledge() -> None:
    # two primaries sharing 2 (each line has two hidden cells): each is at least 1, so both are 1,
    # and then the secondaries below them are their columns' totals minus 1
    cells, relations = grid(["a", "b"], ["x", "y", "z"], {
        ("a", "x"): 10, ("a", "y"): "<5", ("a", "z"): "<5", ("a", "Total"): 12,
        ("b", "x"): 10, ("b", "y"): "·", ("b", "z"): "·", ("b", "Total"): 26,
        ("Total", "x"): 20, ("Total", "y"): 8, ("Total", "z"): 10, ("Total", "Total"): 38})
    disclosed = {f.key: f.low for f in findings(intervals(cells, relations, Knowledge(k=5)).values())}
    assert disclosed == pytest.approx({("a", "y"): 1, ("a", "z"): 1, ("b", "y"): 7, ("b", "z"): 9})
    # with zeros hidden too, a primary may be 0: 0..2 each, nothing disclosed
    assert findings(intervals(cells, relations, Knowledge(k=5, zeros_shown=False)).values()) == []


def test_bounded_totals() -> None:
    # one person can be in several parts: 9 <= total, and total <= 9 + x + y
    cells = {("t",): Cell(15, Status.PUBLISHED), ("a",): Cell(9, Status.PUBLISHED),
             ("b",): Cell(None, Status.SECONDARY), ("c",): Cell(None, Status.PRIMARY)}
    relation = Relation(("t",), (("a",), ("b",), ("c",)), additive=False)
    found = intervals(cells, [relation], Knowledge(k=5))
    assert (found[("b",)].low, found[("b",)].high) == pytest.approx((5, 15))  # b <= total
    assert (found[("c",)].low, found[("c",)].high) == pytest.approx((1, 4))
    additive = intervals(cells, [Relation(("t",), relation.parts)], Knowledge(k=5))
    assert (additive[("b",)].low, additive[("b",)].high) == pytest.approx((5, 5))


def test_narrow_intervals_against_a_protection_width() -> None:
    cells, relations = grid(DAYS, KINDS, marks(WORKED))
    found = intervals(cells, relations, Knowledge(k=5))
    # Mon 6..9 and 1..4, Tue 1..3 and 5..7, Thu 1..4 and 1..4
    assert findings(found.values(), min_width=2) == []
    narrow = findings(found.values(), min_width=2.5)
    assert [(f.key, f.reason) for f in narrow] == [(("Tue", "Follows"), "narrow"), (("Tue", "Saves"), "narrow")]


def test_inconsistent_and_malformed_tables_are_errors() -> None:
    cells, relations = grid(DAYS, KINDS, marks(dict(WORKED, Wed=[51, 9, 8, 69])))
    with pytest.raises(InconsistentTable):
        intervals(cells, relations, Knowledge(k=5))
    with pytest.raises(ValueError, match="must have a value"):
        intervals({("a",): Cell(None, Status.PUBLISHED)}, [], Knowledge(k=5))
    with pytest.raises(ValueError, match="no cell"):
        intervals({("a",): Cell(1, Status.PUBLISHED)}, [Relation(("a",), (("b",),))], Knowledge(k=5))
    with pytest.raises(ValueError, match="unknown mark"):
        grid(["a"], ["x"], {("a", "x"): "?", ("a", "Total"): 1, ("Total", "x"): 1, ("Total", "Total"): 1})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 4), st.integers(2, 4), st.data())
def test_intervals_always_hold_the_truth(n_rows: int, n_columns: int, data: st.DataObject) -> None:
    """Soundness: whatever is hidden, every interval contains the value that was hidden, and an
    'exact' finding is that value."""
    truth = {(f"r{i}", f"c{j}"): data.draw(st.integers(0, 12)) for i in range(n_rows) for j in range(n_columns)}
    primary = {key for key, value in truth.items() if 0 < value < 5}
    secondary = set(data.draw(st.lists(st.sampled_from(sorted(k for k, v in truth.items() if v >= 5) or [("r0", "c0")]),
                                       max_size=4)))
    secondary = {key for key in secondary if truth[key] >= 5}
    cells, relations = _table(truth, primary | secondary, secondary)
    for key, interval in intervals(cells, relations, Knowledge(k=5)).items():
        assert interval.low - 1e-6 <= truth[key] <= (interval.high if interval.high is not None else 1e9) + 1e-6
        if interval.exact:
            assert round(interval.low) == truth[key]


def test_groups_are_solved_apart() -> None:
    """Two tables side by side share no relation: each is solved on its own, with the same
    intervals as when it is alone."""
    cells, relations = grid(DAYS, KINDS, marks(WORKED))
    alone = intervals(cells, relations, Knowledge(k=5))
    other, other_relations, _ = bridged()
    moved = [Relation(("B", *r.total), tuple(("B", *p) for p in r.parts)) for r in other_relations]
    both = intervals({**cells, **{("B", *key): cell for key, cell in other.items()}}, relations + moved, Knowledge(k=5))
    assert len(both) == len(alone) + 9
    for key, interval in alone.items():
        assert (both[key].low, both[key].high) == pytest.approx((interval.low, interval.high))


def test_the_audit_prints_nothing_of_its_solver() -> None:
    """The attack command's stdout is its report: highspy's banner (printed when a process makes
    its first solver, before output can be turned off) must not reach it."""
    code = ("from kanon_tools.attack import Knowledge, audit, grid\n"
            f"cells, relations = grid({DAYS!r}, {KINDS!r}, {marks(WORKED)!r})\n"
            "assert audit(cells, relations, Knowledge(k=5)) == []\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == ""


def test_a_screening_solution_is_kept_only_when_feasible() -> None:
    """The screening's interior-point solutions are not vertices: one that does not meet every
    constraint (here, none can) is dropped rather than counted as seen."""
    cells, relations = grid(DAYS, KINDS, marks(WORKED))
    [program] = _programs(cells, relations, Knowledge(k=5))
    objective = np.ones(len(program.keys))
    assert program.screen(objective, [(low, high or 1e6) for low, high in program.bounds]) is not None
    assert program.screen(objective, [(low, low) for low, _ in program.bounds]) is None  # every cell at its floor
