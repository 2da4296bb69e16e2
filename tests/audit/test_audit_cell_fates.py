"""kanon.audit_cell_fates against the release itself: for every cell, the replay from the audit
trail must say what kanon.release_decisions (over the same arguments) and the release's summary
row say, including for the cells the release never held.

Fixtures: integration_tests/seeds/audit_fates (the events and why each cell is there) and
integration_tests/models/audit_fates (each release, with its release_decisions beside it).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from support import INTEGRATION
from support.cell_fates import Replay, compiled_replays, fetch_fates
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

AUDIT = "kanon_audit"
NODES = ("--select", "path:seeds/audit_fates", "path:models/audit_fates", "package:kanon,path:models/audit")
DIMS = ("branch", "title")
REPORTS = {"audit_fates_suppress": "suppress", "audit_fates_root": "root"}
CUTOFF = "2026-01-08 00:00:00"  # the releases' delay: 2 days as of 2026-01-10
# cells with no event at all (T11 and Z are in no hierarchy); their people are NULL
ABSENT = [("A", "T8"), ("B", "T5"), ("C", "T11"), (None, "T11"), ("Z", "T1")]
# cells with events, none of which the releases counted: no person, too recent, no time
NEVER_HELD = [("A", "T6"), ("C", "T12"), (None, "T3"), ("A", "T7"), (None, "T4")]

Cell = tuple[str | None, ...]
Fate = tuple[Any, ...]  # decision, ladder_step, released labels, released levels, released people


@pytest.fixture(scope="module")
def fates(warehouse_kind: str, make_warehouse: Any) -> tuple[Warehouse, dict[tuple[str, bool], str]]:
    """The releases built, and their replays compiled (in one dbt invocation): every cell of the
    events and the ABSENT ones, with the cells' people and without, by (report, with people)."""
    wh = make_warehouse(warehouse_kind, "fates")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    project.run("build", *NODES)
    cells_sql = _cells_sql(wh)
    keys = [(report, with_people) for with_people in (True, False) for report in REPORTS]
    sqls = compiled_replays(project, [Replay(report, cells_sql, people="people" if with_people else None)
                                      for report, with_people in keys])
    return wh, dict(zip(keys, sqls, strict=True))


def _text(value: str | None) -> str:
    return "cast(null as varchar(10))" if value is None else f"'{value}'"


def _cells_sql(wh: Warehouse) -> str:
    """Every cell of the events, with its people as the releases counted them (distinct persons,
    NULL left out, up to the cutoff), and the ABSENT cells with NULL people."""
    events = wh.relation("audit_fates_events")
    absent = " union all ".join(f"select {_text(b)}, {_text(t)}, cast(null as bigint)" for b, t in ABSENT)
    return (f"select branch, title, count(distinct case when happened_at <= cast('{CUTOFF}' as timestamp) "
            f"then person end) as people from {events} group by branch, title union all {absent}")


def _leaves(wh: Warehouse, dim: str) -> set[str]:
    return {str(leaf) for (leaf,) in wh.query(f"select level_0 from {wh.relation('audit_fates_hierarchy_' + dim)}")}


def _expected(wh: Warehouse, report: str, cells: Sequence[tuple[Cell, int]]) -> dict[Cell, Fate]:
    """Each cell's fate by kanon.release_decisions: NULL for a cell with no people in the release,
    else the decision of the finest cell holding it, found by its labels (NULL for a value that
    is NULL or missing from the hierarchy). Under null_policy='suppress' a cell with a NULL has
    its own finest cell, suppressed up front, which may share its labels with the finest cell of
    values missing from a hierarchy: then release_decisions has two rows for those labels."""
    leaves = {dim: _leaves(wh, dim) for dim in DIMS}
    suppress = REPORTS[report] == "suppress"
    rows: dict[Cell, list[Fate]] = {}
    for branch, title, decision, step, r_branch, r_branch_level, r_title, r_title_level, r_people in wh.query(
        "select branch, title, decision, ladder_step, released_branch, released_branch_level, released_title, "
        f"released_title_level, released_people from {wh.relation(report + '_decisions')}"
    ):
        released = (r_branch, r_title) if decision != "SUPPRESS" else None
        levels = (r_branch_level, r_title_level) if decision != "SUPPRESS" else None
        rows.setdefault((branch, title), []).append((decision, step, released, levels, r_people))
    held: dict[tuple[Cell, bool], list[Cell]] = {}
    for cell, people in cells:
        if people:
            key = tuple(value if value in leaves[dim] else None for dim, value in zip(DIMS, cell, strict=True))
            held.setdefault((key, suppress and None in cell), []).append(cell)
    finest: dict[tuple[Cell, bool], Fate] = {}
    for key in {key for key, _ in held}:
        sides = [side for side in (False, True) if (key, side) in held]
        fates = sorted(rows.pop(key), key=lambda fate: fate[0] == "SUPPRESS")
        assert len(fates) == len(sides), (report, key, fates)  # one finest cell per side
        if len(sides) == 2:  # the NULL side is the suppressed one; the other is listed first
            assert fates[1][0] == "SUPPRESS" and fates[1][1] is None, (report, key, fates)
        for side, fate in zip(sides, fates, strict=True):
            finest[(key, side)] = fate
    assert rows == {}, f"finest cells of {report} that no cell with people falls in: {rows}"
    expected: dict[Cell, Fate] = {cell: (None, None, None, None, None) for cell, people in cells if not people}
    for finest_cell, members in held.items():
        for cell in members:
            expected[cell] = finest[finest_cell]
    return expected


def _replayed(fates: list[dict[str, Any]]) -> dict[Cell, Fate]:
    out: dict[Cell, Fate] = {}
    for fate in fates:
        cell = (fate["branch"], fate["title"])
        assert cell not in out, f"cell {cell} replayed twice"
        labels = json.loads(str(fate["cell_labels"]))
        assert set(labels) == set(DIMS)
        released = json.loads(str(fate["released_labels"])) if fate["released_labels"] else None
        levels = json.loads(str(fate["released_levels"])) if fate["released_levels"] else None
        out[cell] = (
            fate["decision"], fate["ladder_step"],
            tuple(released[d] for d in DIMS) if released else None,
            tuple(levels[d] for d in DIMS) if levels else None,
            fate["released_people"],
        )
    return out


def test_the_replay_agrees_with_the_release_for_every_cell_held_or_not(
    fates: tuple[Warehouse, dict[tuple[str, bool], str]],
) -> None:
    """Every cell of the events and a few absent ones, replayed for each release with the cell's
    people: a cell whose events the release did not count (no person, too recent, no time) or
    that has none gets no decision, whatever groups its labels reach; every other cell gets
    the decision of its finest cell in release_decisions (a NULL under null_policy='suppress':
    SUPPRESS up front, as recorded); and the finest cells by decision are the summary row's."""
    wh, sqls = fates
    for report in REPORTS:
        with_people = fetch_fates(wh, sqls[(report, True)])
        cells = [((f["branch"], f["title"]), int(f["people"] or 0)) for f in with_people]
        assert {cell for cell, people in cells if not people} == set(ABSENT + NEVER_HELD)
        replayed = _replayed(with_people)
        assert replayed == _expected(wh, report, cells), report
        # the release's own summary: its finest cells by decision
        (cells_in, passed, generalized, suppressed), = wh.query(
            "select cells_in, cells_passed, cells_generalized, cells_suppressed from "
            f"{wh.relation('kanon_audit_releases', AUDIT)} where report = '{report}'")
        finest = {(str(f["cell_labels"]), REPORTS[report] == "suppress" and None in (f["branch"], f["title"]),
                   f["decision"]) for f in with_people if f["decision"] is not None}
        decisions = [decision for _, _, decision in finest]
        assert (cells_in, passed, generalized, suppressed) == (
            len(finest), decisions.count("PASS"), decisions.count("GENERALIZE"), decisions.count("SUPPRESS")), report
        # without the people the replay cannot tell a cell the release never held: the argument
        # only takes decisions away, from exactly those cells
        unknown = _replayed(fetch_fates(wh, sqls[(report, False)]))
        assert {cell: fate for cell, fate in unknown.items() if replayed[cell][0] is not None} == {
            cell: fate for cell, fate in replayed.items() if fate[0] is not None}, report


def _joins_that_cannot_be_hashed(wh: Warehouse, sql: str) -> list[str]:
    """The joins of a query's plan that compare rows pair by pair: on Postgres, with nested loops
    and merge joins off, the nested loops left with a join filter (a cross join with a one-row
    CTE has none); on DuckDB, its nested-loop joins. Operator names only, never rows."""
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if wh.kind == "postgres":
            if node.get("Node Type") == "Nested Loop" and "Join Filter" in node:
                found.append(f"Nested Loop ({node.get('Join Type')})")
            children = node.get("Plans", [])
        else:
            if node.get("name") in ("NESTED_LOOP_JOIN", "BLOCKWISE_NL_JOIN", "PIECEWISE_MERGE_JOIN"):
                found.append(str(node["name"]))
            children = node.get("children", [])
        for child in children:
            walk(child)

    conn = wh.connect()
    try:
        cur = conn.cursor()
        if wh.kind == "postgres":
            cur.execute("set enable_nestloop = off; set enable_mergejoin = off")
            cur.execute("explain (format json) " + sql)
            plan = cur.fetchone()[0]
            walk(plan[0]["Plan"])
        else:
            cur.execute("explain (format json) " + sql)
            for node in json.loads(cur.fetchone()[1]):
                walk(node)
    finally:
        conn.close()
    return found


def test_every_join_of_the_replay_can_be_hashed(fates: tuple[Warehouse, dict[tuple[str, bool], str]]) -> None:
    """The replay matches cells to groups by equalities only, so that no warehouse compares every
    cell with every group: the suppressed groups were joined on an OR (the last step's, or under
    null_policy='suppress' for a cell with a NULL, step 0's), which Postgres ran as a nested
    loop rebuilding the labels' JSON for each pair (minutes for 2,000 cells of a 600k-event
    release, tests/audit/bench_cell_fates.py) and DuckDB as a blockwise nested loop."""
    wh, sqls = fates
    for (report, _), sql in sqls.items():
        assert _joins_that_cannot_be_hashed(wh, sql) == [], report
