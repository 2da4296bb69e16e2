"""kanon.release_table on DuckDB and Postgres: the issue's worked example cell for cell, a
three-way table with a hierarchy's subtotals, a linked pair of tables, the audit trail, the
attacker's LP audit (kanon_tools.attack, independent of the SQL that chose the pattern) on what
was published, the gate's refusals, bad inputs, odd labels, and random tables of two and three
dimensions and random linked pairs.

Fixtures: integration_tests/seeds/table (the worked example's events; odd labels; patrons by
branch, age band and action with a branch hierarchy; people by day, kind and branch for the
linked pair) and integration_tests/models/table. One build per warehouse, one run of the
refusals, one of the bad inputs, a few CLI calls; the random tables are more builds, on DuckDB.
"""

from __future__ import annotations

import csv
import itertools
import json
import math
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanon_tools import attack, attack_report
from kanon_tools.attack import Cell, Knowledge, Status, findings, grid, intervals
from support import INTEGRATION, ROOT
from support.commands import kanon_tools_cli
from support.projects import DbtProject, assert_bad_inputs_refused, copy_project
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

AUDIT = "kanon_audit"
SEEDS = INTEGRATION / "seeds" / "table"
NODES = ("--select", "path:seeds/table", "path:models/table", "package:kanon,path:models/audit")
PROJECT = "model.kanon_integration_tests"
DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
ACTIONS = ["Views", "Saves", "Follows"]
# the worked example, published with k=5 (Views, Saves, Follows, Total)
WORKED = {
    "Mon": ["42", "·", "<5", "52"],
    "Tue": ["38", "<5", "·", "46"],
    "Wed": ["51", "9", "8", "68"],
    "Thu": ["12", "<5", "<5", "17"],
    "Fri": ["29", "6", "5", "40"],
    "Total": ["172", "28", "23", "223"],
}
HIDDEN = {("Mon", "Follows"): "PRIMARY", ("Tue", "Saves"): "PRIMARY", ("Thu", "Saves"): "PRIMARY",
          ("Thu", "Follows"): "PRIMARY", ("Mon", "Saves"): "SECONDARY", ("Tue", "Follows"): "SECONDARY"}
PLAN_KEYS = {"kind", "k", "relation", "privacy_unit", "count_rows", "dimension_columns", "hierarchies", "count_column",
             "hide_zeros", "total_label", "null_unit", "protection", "step", "linked", "dimensions", "cells", "primary",
             "secondary", "published", "non_additive_totals", "rounds", "search_seconds", "first_try_bounds",
             "refused"}
EXPECTED = Path(__file__).parent / "expected"


@pytest.fixture(scope="module")
def built(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse]:
    wh = make_warehouse(warehouse_kind, "table")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    project.run("build", *NODES, "--exclude", "path:models/table/bad_inputs")
    return project, wh


def _rows(wh: Warehouse, model: str) -> list[tuple[Any, ...]]:
    """A two-way mart's rows: row label, row level, column label, column level, count, status,
    display, additive along the row dimension, additive along the column dimension."""
    return wh.query(f"select * from {wh.relation(model)}")


def _mart(wh: Warehouse, model: str) -> list[dict[str, Any]]:
    """The mart's rows by column name."""
    names = [name for (name,) in wh.query(
        "select column_name from information_schema.columns where table_name = '" + model
        + "' and table_schema = '" + wh.schema + "' order by ordinal_position")]
    return [dict(zip(names, row, strict=True)) for row in wh.query(
        "select " + ", ".join(f'"{name}"' for name in names) + f" from {wh.relation(model)}")]


def _emitted(wh: Warehouse, model: str, k: int, zeros_hidden: bool = False,
             count_column: str = "people") -> dict[str, Any]:
    """What kanon.cli_table_cells emits, read from the mart directly (the dimensions are the
    columns published beside their _level column)."""
    rows = _mart(wh, model)
    names = list(rows[0]) if rows else []
    dims = [name for name in names if f"{name}_level" in names]
    cells = [[[[row[d], int(row[f"{d}_level"]), row.get(f"{d}_parent")] for d in dims],
              None if row[count_column] is None else int(row[count_column]), row["status"],
              [row[f"{d}_additive"] for d in dims]] for row in rows]
    return {"relation": model, "k": k, "zeros_hidden": zeros_hidden, "count_column": count_column,
            "dimensions": [{"name": d, "hierarchical": f"{d}_parent" in names} for d in dims], "cells": cells}


def _truth(path: Path, unit: str, row: str, column: str) -> dict[tuple[str | None, str | None], set[str]]:
    """People per (row, column) from a seed, in Python: None for an empty value (dbt seeds load it as NULL)."""
    people: dict[tuple[str | None, str | None], set[str]] = defaultdict(set)
    with path.open(encoding="utf-8", newline="") as f:
        for record in csv.DictReader(f):
            if record[unit]:
                people[(record[row] or None, record[column] or None)].add(record[unit])
    return people


def _counts(people: dict[tuple[str | None, str | None], set[str]]) -> dict[tuple[Any, Any], int]:
    """Every cell's and total's distinct people, keyed as the mart's (level, label) pairs."""
    rows = {r for r, _ in people}
    columns = {c for _, c in people}
    out: dict[tuple[Any, Any], int] = {}
    for r in rows:
        for c in columns:
            out[((0, r), (0, c))] = len(people.get((r, c), set()))
        out[((0, r), (1, None))] = len(set().union(*(people.get((r, c), set()) for c in columns)))
    for c in columns:
        out[((1, None), (0, c))] = len(set().union(*(people.get((r, c), set()) for r in rows)))
    out[((1, None), (1, None))] = len(set().union(*people.values()))
    return out


def _key(row: tuple[Any, ...]) -> tuple[tuple[int, Any], tuple[int, Any]]:
    return ((int(row[1]), row[0] if int(row[1]) == 0 else None), (int(row[3]), row[2] if int(row[3]) == 0 else None))


def _plan(wh: Warehouse, model: str) -> dict[str, Any]:
    [(plan,)] = wh.query(f"select release_plan from {wh.relation('kanon_audit_releases', AUDIT)} "
                         f"where report = '{model}' and status = 'RELEASED' order by released_at desc limit 1")
    return dict(json.loads(plan))


def test_the_worked_example_is_published_cell_for_cell(built: tuple[DbtProject, Warehouse]) -> None:
    _, wh = built
    rows = _rows(wh, "table_worked")
    assert len(rows) == 24
    shown = {(r[0], r[2]): r[6] for r in rows}
    for day, marks in WORKED.items():
        assert [shown[(day, action)] for action in [*ACTIONS, "Total"]] == marks, day
    for label, level, action, action_level, people, status, display, day_additive, action_additive in rows:
        hidden = HIDDEN.get((label, action))
        assert status == (hidden.lower() if hidden else "published")
        assert people == (None if hidden else int(display))
        assert (day_additive is None) == (level == 0) and (action_additive is None) == (action_level == 0)
        assert day_additive in (None, True) and action_additive in (None, True)  # one person, one cell


def test_primaries_and_secondaries_are_on_the_audit_trail_without_their_counts(
        built: tuple[DbtProject, Warehouse]) -> None:
    _, wh = built
    audit = wh.relation("kanon_audit_groups", AUDIT)
    releases = wh.relation("kanon_audit_releases", AUDIT)
    [(invocation, cells_in, passed, suppressed, null_events, kind)] = wh.query(
        f"select invocation_id, cells_in, cells_passed, cells_suppressed, events_null_unit, release_kind "
        f"from {releases} where report = 'table_worked' and status = 'RELEASED' order by released_at desc limit 1")
    assert (cells_in, passed, suppressed, null_events, kind) == (24, 18, 6, 2, "table")
    groups = wh.query(f"select decision, labels, levels, people, ladder_step from {audit} "
                      f"where invocation_id = '{invocation}' and report_unique_id = '{PROJECT}.table_worked'")
    found = {(json.loads(labels)["day"], json.loads(labels)["action"]): decision
             for decision, labels, _, _, _ in groups}
    assert found == HIDDEN
    assert all(json.loads(levels) == {"day": 0, "action": 0} for _, _, levels, _, _ in groups)
    assert all(people is None and step is None for _, _, _, people, step in groups)  # no hidden count
    plan = _plan(wh, "table_worked")
    assert set(plan) == PLAN_KEYS
    assert (plan["primary"], plan["secondary"], plan["published"], plan["cells"]) == (4, 2, 18, 24)
    assert plan["refused"] is None and plan["non_additive_totals"] == 0
    # five days and three actions: too few leaves for the bounds to leave a cube out, so one try
    # against every cube (and the pattern pinned above is the one two tries found before)
    assert plan["first_try_bounds"] is None


def test_the_lp_audit_finds_nothing_and_catches_a_secondary_shown(built: tuple[DbtProject, Warehouse]) -> None:
    """Independent of the SQL: the attacker's LP on the published mart finds no exact disclosure;
    showing one secondary's true count (Mon Saves, 8) gives Mon Follows away as 52 - 42 - 8."""
    _, wh = built
    emitted = _emitted(wh, "table_worked", 5)
    cells, found = attack_report.audit(emitted)
    assert len([c for c in cells.values() if c.value is None]) == 6
    assert found == []
    truth = _counts(_truth(SEEDS / "table_activity.csv", "user_id", "day", "action"))
    shown = truth[((0, "Mon"), (0, "Saves"))]
    weakened = dict(emitted, cells=[[row[0], shown, "published", row[3]]
                                    if (row[0][0][0], row[0][1][0]) == ("Mon", "Saves") else row
                                    for row in emitted["cells"]])
    _, found = attack_report.audit(weakened)
    assert [(attack_report.describe(f.key), f.reason) for f in found] == [("Mon x Follows", "exact")]


def test_a_line_rule_pattern_with_a_bridge_is_caught_by_the_audit(built: tuple[DbtProject, Warehouse]) -> None:
    """Every line has two hidden cells or none, but Mon Follows is the only link between two
    rectangles (the pattern of table_tampered_bridge, which the gate refuses): the LP gives it away."""
    truth = _counts(_truth(SEEDS / "table_activity.csv", "user_id", "day", "action"))
    hidden = {("Mon", "Follows"), ("Tue", "Saves"), ("Thu", "Saves"), ("Thu", "Follows"), ("Tue", "Follows"),
              ("Mon", "Views"), ("Mon", "Total"), ("Wed", "Views"), ("Wed", "Total")}

    def side(label: str) -> tuple[int, str | None]:
        return (1, None) if label == "Total" else (0, label)

    marks: dict[tuple[str, str], str | int] = {}
    for day in [*DAYS, "Total"]:
        for action in [*ACTIONS, "Total"]:
            value = truth[(side(day), side(action))]
            marks[(day, action)] = ("<5" if value < 5 else "·") if (day, action) in hidden else value
    cells, relations = grid(DAYS, ACTIONS, marks)
    for relation in relations:
        assert len([key for key in (relation.total, *relation.parts) if cells[key].value is None]) != 1
    exact = findings(intervals(cells, relations, Knowledge(k=5)).values())
    assert [(f.key, f.reason) for f in exact] == [(("Mon", "Follows"), "exact")]


def test_the_gate_refuses_tampered_long_forms_and_keeps_the_previous_release(
        built: tuple[DbtProject, Warehouse]) -> None:
    project, wh = built
    before = sorted(_rows(wh, "table_worked"), key=repr)
    result = project.run("run", "--select", "path:models/table",
                         "--vars", "{table_refusals: true, table_null_unit: error}", expect_ok=False)
    expected = {
        "table_tampered_below_k": ("table_recount",
                                   "2 published cell(s) or total(s) show a count that is not theirs, or below k=5"),
        "table_tampered_line": ("table_line_rule", "2 line(s) of the table have exactly one hidden cell"),
        "table_tampered_bridge": ("no_exact_disclosure", "1 hidden cell(s) lie on no cube of hidden cells"),
        "table_missing_leaf": ("table_search",
                               "82 event(s) have a value of 'branch' (NULL included) that its hierarchy"),
        "table_tampered_protection": ("no_exact_disclosure",
                                      "2 hidden cell(s) lie on no cube of hidden cells that could move by 3"),
        "table_worked": ("null_unit", "2 event(s) have a NULL privacy unit and null_unit='error'"),
        "table_linked_tampered": ("no_exact_disclosure", "5 hidden cell(s) lie on no cube of hidden cells"),
        "table_linked_stale": ("table_search", "4 cell(s) of the linked table table_linked_branch_alone"),
        # its rows are all hidden cells: it would show nothing (issue 49)
        "table_all_hidden": ("output_empty", "it read "),
    }
    releases = wh.relation("kanon_audit_releases", AUDIT)
    for model, (check, reason) in expected.items():
        assert result.status(f"{PROJECT}.{model}") == "error", model
        assert f"(check {check})" in result.output
        [(failed, why)] = wh.query(f"select failed_check, reason from {releases} where report = '{model}' "
                                   f"and status = 'REFUSED' and invocation_id = '{result.invocation_id}'")
        assert failed == check and why.startswith(reason), (model, why)
        if check == "output_empty":
            assert "would publish nothing" in why and "allow_empty_output=true" in why, why
    assert sorted(_rows(wh, "table_worked"), key=repr) == before  # the previous release stands
    published = {name for (name,) in wh.query(
        "select table_name from information_schema.tables where table_schema = '" + wh.schema + "'")}
    assert not {"table_tampered_below_k", "table_tampered_line", "table_tampered_bridge", "table_missing_leaf",
                "table_tampered_protection", "table_linked_tampered", "table_linked_stale",
                "table_all_hidden"} & published


def test_events_without_a_person_are_left_out_and_counted(built: tuple[DbtProject, Warehouse]) -> None:
    """The worked example's two events of nobody change no count (the worked example holds); a
    release counting rows counts them, with zeros hidden too, and the audit finds nothing."""
    _, wh = built
    rows = _rows(wh, "table_hidden_zeros")
    events: dict[tuple[Any, Any], int] = defaultdict(int)
    with (SEEDS / "table_activity.csv").open(encoding="utf-8", newline="") as f:
        for record in csv.DictReader(f):
            for r in ((0, record["day"]), (1, None)):
                for c in ((0, record["action"]), (1, None)):
                    events[(r, c)] += 1
    for row in rows:
        count = events[_key(row)]
        assert row[5] == "primary" if count < 5 else row[5] in ("published", "secondary")
        assert row[4] == (count if row[5] == "published" else None)
    assert attack_report.audit(_emitted(wh, "table_hidden_zeros", 5, zeros_hidden=True, count_column="events"))[1] == []
    assert _plan(wh, "table_hidden_zeros")["count_rows"] is True


def test_odd_labels_and_totals_that_are_not_sums(built: tuple[DbtProject, Warehouse]) -> None:
    """Quotes, non-ASCII, a NULL region and a real region 'Total' (told apart from the total by its
    level); people in several cells, so totals are distinct counts below the sums of their cells,
    and say so. Every count matches Python's, and the LP audit with inequalities finds nothing."""
    _, wh = built
    people = _truth(SEEDS / "table_odd_events.csv", "visitor", "Région", "Kind's")
    truth = _counts(people)
    rows = _rows(wh, "table_odd")
    assert {_key(row) for row in rows} == set(truth)
    assert {row[0] for row in rows if row[1] == 0} == {"O'Brien", "Zürich", '"quoted"', None, "Total"}
    for row in rows:
        count = truth[_key(row)]
        assert (row[5] == "primary") == (0 < count < 3), row
        assert row[4] == (count if row[5] == "published" else None)
    sums = {key: sum(v for other, v in truth.items() if other[1][0] == 0 and other[0] == key[0])
            for key in truth if key[1][0] == 1}
    for row in rows:
        if row[1] == 0 and row[3] == 1:  # a region's total: the sum of its kinds, or not
            assert row[8] is (sums[_key(row)] == truth[_key(row)])
    assert any(row[8] is False for row in rows)
    assert attack_report.audit(_emitted(wh, "table_odd", 3, count_column="visitors"))[1] == []


def test_the_attack_command_reads_the_mart_through_dbt(built: tuple[DbtProject, Warehouse]) -> None:
    """`python -m kanon_tools attack` as a release gate: exit 0 on the worked example, 1 with a
    protection width its Tue cells do not reach; keys and counts only, never a hidden value."""
    _, wh = built

    def attack(*args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
        return kanon_tools_cli(["attack", "--project-dir", str(INTEGRATION), *args], wh.env(), ROOT, process=process)

    ok = attack("--report", "table_worked", process=True)  # as a user runs it, once
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "6 hidden (4 primary, 2 secondary); 0 exact disclosure(s)" in ok.stdout
    narrow = attack("--report", "table_worked", "--protection", "2.5")
    assert narrow.returncode == 1, narrow.stdout + narrow.stderr
    findings_lines = narrow.stdout.splitlines()[1:]
    assert findings_lines == ["  NARROW Tue x Follows (secondary)", "  NARROW Tue x Saves (primary)"]
    assert "FAIL: 2 hidden cell(s)" in narrow.stderr
    assert attack("--report", "table_worked", "--protection", "-1").returncode == 2
    promised = attack("--report", "table_worked_protected")  # audited at the width it promised
    assert promised.returncode == 0, promised.stdout + promised.stderr
    assert "7 hidden (4 primary, 3 secondary); 0 exact disclosure(s), 0 narrower than 3" in promised.stdout
    assert "every one is at least 3 wide" in promised.stdout
    # a linked pair, audited together: safe; with day x branch released alone, not
    pair = attack("--report", "table_linked_kind", "--report", "table_linked_branch")
    assert pair.returncode == 0, pair.stdout + pair.stderr
    assert "OK: no hidden cell of table_linked_kind, table_linked_branch can be worked out exactly" in pair.stdout
    unsafe = attack("--report", "table_linked_kind", "--report", "table_linked_branch_alone")
    assert unsafe.returncode == 1, unsafe.stdout + unsafe.stderr
    assert ("FAIL: 2 hidden quantities of table_linked_kind, table_linked_branch_alone can be worked out exactly"
            in unsafe.stderr)



# --- three dimensions, one with a hierarchy: branch -> region -> all, age band, action ---

def _branch_truth() -> dict[tuple[tuple[int, str | None], ...], int]:
    """Every cell's distinct patrons of table_branch_events, in Python: keyed by (level, label) per
    dimension, the region from the hierarchy seed, None for a total."""
    with (SEEDS / "table_hierarchy_branch.csv").open(encoding="utf-8", newline="") as f:
        region = {row["level_0"]: row["level_1"] for row in csv.DictReader(f)}
    people: dict[tuple[tuple[int, str | None], ...], set[str]] = defaultdict(set)
    with (SEEDS / "table_branch_events.csv").open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            for b in ((0, row["branch"]), (1, region[row["branch"]]), (2, None)):
                for a in ((0, row["age_band"]), (1, None)):
                    for c in ((0, row["action"]), (1, None)):
                        people[(b, a, c)].add(row["patron"])
    nodes = [sorted({key[i] for key in people}, key=repr) for i in range(3)]
    return {(b, a, c): len(people.get((b, a, c), set())) for b in nodes[0] for a in nodes[1] for c in nodes[2]}


def _branch_key(row: dict[str, Any]) -> tuple[tuple[int, str | None], ...]:
    return tuple((int(row[f"{d}_level"]), None if row[f"{d}_level"] == top else row[d])
                 for d, top in (("branch", 2), ("age_band", 1), ("action", 1)))


def test_a_three_way_table_with_subtotals_is_counted_marked_and_safe(built: tuple[DbtProject, Warehouse]) -> None:
    """Branch -> region -> all, age band and action: every cell and subtotal is the patrons' count
    (Python's, from the seeds), every mark tells the truth, each total says along which dimension
    it is the sum of its parts, the pattern is the pinned one on both warehouses, and the LP audit
    (independent of the SQL) finds no exact disclosure, but does once one secondary is shown."""
    _, wh = built
    truth = _branch_truth()
    rows = _mart(wh, "table_three_way")
    assert len(rows) == len(truth) == 11 * 5 * 4
    assert [name for name in rows[0] if name.endswith(("_level", "_parent", "_additive"))] == [
        "branch_level", "branch_parent", "age_band_level", "action_level",
        "branch_additive", "age_band_additive", "action_additive"]
    for row in rows:
        count = truth[_branch_key(row)]
        assert (row["status"] == "primary") == (0 < count < 5), row
        assert row["patrons"] == (count if row["status"] == "published" else None), row
        assert row["status"] != "secondary" or count >= 5
        if row["branch_level"] == 0:
            assert row["branch_parent"] in {"City", "North", "South"} and row["branch_additive"] is None
        assert (row["branch_parent"] == "Total") == (row["branch_level"] == 1)
    # patrons in several actions: some totals along action are below the sum of their parts
    assert any(row["action_additive"] is False for row in rows)
    assert all(row["branch_additive"] in (None, True) for row in rows)  # one branch per event
    with (EXPECTED / "table_three_way_hidden.csv").open(encoding="utf-8", newline="") as f:
        pinned = {tuple(row.values()) for row in csv.DictReader(f)}
    hidden = {(str(row["branch_level"]), row["branch"] or "", str(row["age_band_level"]), row["age_band"] or "",
               str(row["action_level"]), row["action"] or "", row["status"])
              for row in rows if row["status"] != "published"}
    assert hidden == pinned
    # 8 x 4 x 3 leaves: 72 x 20 x 12 cubes through a cell, too many to try at once
    assert _plan(wh, "table_three_way")["first_try_bounds"] == {"limit": 8, "moves": 6}
    emitted = _emitted(wh, "table_three_way", 5, count_column="patrons")
    cells, found = attack_report.audit(emitted)
    assert found == [] and sum(1 for cell in cells.values() if cell.value is None) == len(pinned)
    # one secondary shown: some secondary is needed (the pattern is not padded), and showing it
    # gives a hidden cell away, which the audit finds
    caught = 0
    for i, row in enumerate(emitted["cells"]):
        if row[2] != "secondary":
            continue
        count = truth[tuple((level, None if level == top else label)
                            for (label, level, _), top in zip(row[0], (2, 1, 1), strict=True))]
        shown = [row[0], count, "published", row[3]]
        weakened = dict(emitted, cells=[*emitted["cells"][:i], shown, *emitted["cells"][i + 1:]])
        caught += any(f.reason == "exact" for f in attack_report.audit(weakened)[1])
    assert caught > 0


def test_a_protection_width_hides_more_and_the_audit_agrees(built: tuple[DbtProject, Warehouse]) -> None:
    """protection=3 on the worked example: the plain pattern pins Tue's cells to intervals 2 wide
    (the LP audit finds them narrow), so the search hides more (Thu Views, Tue Views), and the
    LP audit, independent of the SQL, finds every hidden cell at least 3 wide."""
    _, wh = built
    plain = attack_report.audit(_emitted(wh, "table_worked", 5), protection=3)[1]
    assert {(attack_report.describe(f.key), f.reason) for f in plain} == {
        ("Tue x Saves", "narrow"), ("Tue x Follows", "narrow")}
    rows = _rows(wh, "table_worked_protected")
    hidden = {(r[0], r[2]): r[5] for r in rows if r[5] != "published"}
    assert hidden == {("Mon", "Follows"): "primary", ("Tue", "Saves"): "primary", ("Thu", "Saves"): "primary",
                      ("Thu", "Follows"): "primary", ("Mon", "Saves"): "secondary", ("Thu", "Views"): "secondary",
                      ("Tue", "Views"): "secondary"}
    cells, found = attack_report.audit(_emitted(wh, "table_worked_protected", 5), protection=3)
    assert found == [] and sum(1 for cell in cells.values() if cell.value is None) == 7
    plan = _plan(wh, "table_worked_protected")
    assert (plan["protection"], plan["step"]) == (3, 3)


def _readme_grid(after: str) -> dict[tuple[str, str], str]:
    """The first Markdown table after the line `after` in the README: {(row, column): display}."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    start = next(at for at, line in enumerate(lines) if after in line)
    table = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append([cell.strip() for cell in line.strip().strip("|").split("|")])
        elif table:
            break
    header, body = table[0], table[2:]
    return {(row[0], column): value for row in body for column, value in zip(header[1:], row[1:], strict=True)}


def test_the_readme_shows_the_protected_pattern_as_published(built: tuple[DbtProject, Warehouse]) -> None:
    """Issue 30, item 10: the README's protection=3 grid is the mart's, cell for cell (Tue Follows
    is published again, not kept hidden)."""
    _, wh = built
    shown = {(r[0] if r[1] == 0 else "Total", r[2] if r[3] == 0 else "Total"): r[6]
             for r in _rows(wh, "table_worked_protected")}
    assert _readme_grid("`protection=3` the pattern becomes") == shown
    assert shown[("Tue", "Follows")] == "5"


# --- linked tables: day x kind, then day x branch linked to it (the same 123 people) ---

# (row, column) displays of each mart: Thursday's 3 people are hidden with their day total; day x
# kind pairs Thursday with Friday. Alone, day x branch pairs it with Wednesday and publishes
# Friday's day total, which gives Thursday's away in day x kind; linked, it hides Friday's too.
LINKED = {
    "table_linked_kind": {"Mon": ["20", "20", "40"], "Tue": ["20", "20", "40"], "Wed": ["10", "10", "20"],
                          "Thu": ["<5", "<5", "<5"], "Fri": ["·", "·", "·"], "Total": ["66", "57", "123"]},
    "table_linked_branch": {"Mon": ["20", "20", "40"], "Tue": ["20", "20", "40"], "Wed": ["15", "5", "20"],
                            "Thu": ["<5", "<5", "<5"], "Fri": ["·", "·", "·"], "Total": ["66", "57", "123"]},
    "table_linked_branch_alone": {"Mon": ["20", "20", "40"], "Tue": ["20", "20", "40"], "Wed": ["15", "·", "·"],
                                  "Thu": ["<5", "<5", "<5"], "Fri": ["·", "·", "20"], "Total": ["66", "57", "123"]},
}


def test_a_linked_pair_is_searched_together_and_safe_together(built: tuple[DbtProject, Warehouse]) -> None:
    """The pinned patterns on both warehouses, every count Python's; each table alone passes the
    LP audit, and so does the linked pair audited as one system, while the pair with day x branch
    released alone gives Thursday's day total away (the audit, independent of the SQL, finds it)."""
    _, wh = built
    for model, marks in LINKED.items():
        column = "kind" if model.endswith("kind") else "branch"
        truth = _counts(_truth(SEEDS / "table_linked_events.csv", "person", "day", column))
        rows = _mart(wh, model)
        labels = [*sorted({row[column] for row in rows if row[f"{column}_level"] == 0}), "Total"]
        shown = {(row["day"], row[column]): row["display"] for row in rows}
        assert {day: [shown[(day, c)] for c in labels] for day in marks} == marks, model
        for row in rows:
            key = ((int(row["day_level"]), row["day"] if row["day_level"] == 0 else None),
                   (int(row[f"{column}_level"]), row[column] if row[f"{column}_level"] == 0 else None))
            assert row["people"] == (truth[key] if row["status"] == "published" else None), (model, row)
    pair = [_emitted(wh, model, 5) for model in ("table_linked_kind", "table_linked_branch")]
    alone = _emitted(wh, "table_linked_branch_alone", 5)
    for table in (*pair, alone):
        assert attack_report.audit(table)[1] == []
    assert attack_report.audit_many(pair)[1] == []
    found = attack_report.audit_many([pair[0], alone])[1]
    # Thursday's day total (the grand total less four published), and Wednesday North (Wednesday's
    # total, published by day x kind, less Wednesday East)
    assert sorted((f.key, f.reason) for f in found) == [
        (("branch", "0", '"North"', "day", "0", '"Wed"'), "exact"), (("day", "0", '"Thu"'), "exact")]
    plan = _plan(wh, "table_linked_branch")
    assert plan["linked"]["model"] == "table_linked_kind" and plan["linked"]["dimension"] == "kind"
    assert (plan["primary"], plan["secondary"], plan["cells"]) == (3, 3, 18)  # its own cells only
    assert _plan(wh, "table_linked_kind")["linked"] is None


def test_releasing_a_linked_table_without_its_partner_warns(built: tuple[DbtProject, Warehouse]) -> None:
    """Day x branch was searched against day x kind as published: releasing day x kind alone says
    so (its partner is not in the run); with its partner selected too, nothing to say."""
    project, _ = built
    alone = project.run("run", "--select", "table_linked_kind")
    assert "table_linked_branch (linked_to this table) are not in this run" in alone.output
    both = project.run("run", "--select", "table_linked_kind+")
    assert "linked_to this table" not in both.output


BAD_INPUTS = {
    "bad_table_one_dimension": "dimensions must be a list of two or more column names, got ['day']",
    "bad_table_both_ways": "give dimensions=[...] or row_dimension and column_dimension, not both",
    "bad_table_hierarchy_unknown": "hierarchy given for 'weekday', which is not one of the dimensions day, action",
    "bad_table_five_dimensions": "a table of 5 dimensions is not supported (at most 4)",
    "bad_table_same_dimension": "released column 'DAY' (dimension) clashes with 'day' (dimension)",
    "bad_table_not_gated": "only published through its gate",
    "bad_table_no_dimensions": "name the table's dimensions: dimensions=[...]",
    "bad_table_protection_too_wide":
        "protection=4 cannot be met: a cell marked <5 is known to lie in 1..4, an interval 3 wide",
    "bad_table_protection_negative": "protection must be a number of people above 0",
    "bad_table_linked_not_list": "linked_to must be a list of tables released by kanon.release_table",
    "bad_table_linked_two": "linked_to names 2 tables; kanon links a table to one other",
    "bad_table_linked_not_a_table": "table_linked_events\" is not a table released by kanon.release_table",
    "bad_table_linked_other_k": "was released with k=5 and hide_zeros=False; a linked table needs the same (k=4",
    "bad_table_linked_nothing_own": "linked tables must share every dimension but one each",
    "bad_table_linked_chain": "linked_to table_linked_branch is linked to another table itself; kanon searches a pair",
}


def test_bad_table_inputs_fail_clearly_and_publish_nothing(built: tuple[DbtProject, Warehouse]) -> None:
    assert_bad_inputs_refused(*built, "models/table/bad_inputs", "bad_table", BAD_INPUTS)


# --- random tables (DuckDB): generated events -> release -> the LP audit finds no exact disclosure ---

RANDOM_EXAMPLES = 20


@st.composite
def _random_table(draw: st.DrawFn) -> dict[str, Any]:
    n_rows, n_columns = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    k = draw(st.sampled_from([3, 4, 5]))
    overlap = draw(st.booleans())  # people in several cells of a row: totals that are not sums
    events: list[tuple[str, str, str]] = []
    person = 0
    for i in range(n_rows):
        reused: list[str] = []
        for j in range(n_columns):
            count = draw(st.one_of(st.integers(0, k), st.integers(0, 14)))
            for _ in range(count):
                if overlap and reused and draw(st.booleans()):
                    who = draw(st.sampled_from(reused))
                else:
                    person += 1
                    who = f"p{person}"
                    reused.append(who)
                events.append((who, f"r{i}", f"c{j}"))
    return {"k": k, "hide_zeros": draw(st.booleans()), "events": events}


def _draw(strategy: st.SearchStrategy[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    """`count` tables drawn by hypothesis from `strategy` (derandomized, so the same every run),
    skipping those without events; built together in one dbt invocation rather than one each."""
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=2 * count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(table: dict[str, Any]) -> None:
        if table["events"] and len(drawn) < count:
            drawn.append(table)

    collect()
    return drawn


def _write_csv(path: Path, header: list[str], rows: list[tuple[str, ...]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _write_linked(seeds: Path, models: Path, events: str, first: str, second: str, table: dict[str, Any]) -> None:
    """A linked pair's seeds and models: `first` = g (a) x, `second` = g (a) y linked to it, and
    `second`_alone, the same without the link."""
    _write_csv(seeds / f"{events}.csv", ["person", "g", "a", "x", "y"], table["events"])
    hierarchy = ""
    if table["regions"]:
        _write_csv(seeds / f"{events}_h.csv", ["level_0", "level_1", "level_2"],
                   [(leaf, region, "*") for leaf, region in table["regions"].items()])
        hierarchy = f", hierarchies={{'g': ref('{events}_h')}}"
    shared = "'g', 'a', " if table["shared_a"] else "'g', "
    pairs = ((first, "x", ""), (second, "y", f", linked_to=[ref('{first}')]"), (f"{second}_alone", "y", ""))
    for model, own, link in pairs:
        (models / f"{model}.sql").write_text(
            f"{{{{ config(materialized='k_anonymous', k={table['k']}) }}}}\n"
            f"{{{{ kanon.release_table(ref('{events}'), privacy_unit='person', "
            f"dimensions=[{shared}'{own}']{hierarchy}, hide_zeros={str(table['hide_zeros']).lower()}{link}) }}}}\n")


def _build_random(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory, name: str,
                  strategy: st.SearchStrategy[dict[str, Any]], count: int,
                  ) -> tuple[Warehouse, list[dict[str, Any]], Any]:
    """Every example's events (and hierarchy) as seeds and its release as a model, built in one
    dbt invocation. A two-way example has events (person, r, c); a three-way one (person, g, a,
    c) and a `regions` hierarchy of g."""
    examples = _draw(strategy, count)
    project_dir = copy_project(INTEGRATION, tmp_path_factory.mktemp(name) / "project")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    seeds, models = project_dir / "seeds" / name, project_dir / "models" / name
    seeds.mkdir(parents=True)
    models.mkdir(parents=True)
    for i, table in enumerate(examples):
        # a random table may hide every cell: publishing it is a legitimate outcome here
        options = f"k={table['k']}, allow_empty_output=true"
        if table.get("linked"):
            _write_linked(seeds, models, f"{name}_{i}", f"{name}_a_{i}", f"{name}_model_{i}", table)
            continue
        if "regions" in table:
            _write_csv(seeds / f"{name}_{i}.csv", ["person", "g", "a", "c"], table["events"])
            _write_csv(seeds / f"{name}_{i}_h.csv", ["level_0", "level_1", "level_2"],
                       [(leaf, region, "*") for leaf, region in table["regions"].items()])
            dimensions = f"dimensions=['g', 'a', 'c'], hierarchies={{'g': ref('{name}_{i}_h')}}"
        else:
            _write_csv(seeds / f"{name}_{i}.csv", ["person", "r", "c"], table["events"])
            dimensions = "row_dimension='r', column_dimension='c'"
        (models / f"{name}_model_{i}.sql").write_text(
            f"{{{{ config(materialized='k_anonymous', {options}) }}}}\n"
            f"{{{{ kanon.release_table(ref('{name}_{i}'), privacy_unit='person', {dimensions}, "
            f"hide_zeros={str(table['hide_zeros']).lower()}) }}}}\n")
    wh = make_warehouse("duckdb", name)
    project = DbtProject(project_dir, wh)
    project.run("deps")
    result = project.run("build", "--select", f"path:seeds/{name}", f"path:models/{name}",
                         "package:kanon,path:models/audit", expect_ok=None)
    return wh, examples, result


@pytest.fixture(scope="module")
def random_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                 ) -> tuple[Warehouse, list[dict[str, Any]], Any]:
    return _build_random(make_warehouse, tmp_path_factory, "table_random", _random_table(), RANDOM_EXAMPLES)


def test_random_tables_disclose_nothing_to_the_lp_audit(
        random_built: tuple[Warehouse, list[dict[str, Any]], Any]) -> None:
    wh, examples, result = random_built
    assert len(examples) == RANDOM_EXAMPLES
    refused = showing = 0
    for i, table in enumerate(examples):
        model = f"table_random_model_{i}"
        if result.status(f"{PROJECT}.{model}") != "success":
            refused += 1
            assert "(check table_search)" in result.output, result.output[-3000:]
            continue
        people: dict[tuple[str | None, str | None], set[str]] = defaultdict(set)
        for who, r, c in table["events"]:
            people[(r, c)].add(who)
        truth = _counts(people)
        rows = _rows(wh, model)
        lo = 0 if table["hide_zeros"] else 1
        for row in rows:
            count = truth.get(_key(row), 0)
            assert (row[5] == "primary") == (lo <= count < table["k"]), (i, row)
            assert row[4] == (count if row[5] == "published" else None), (i, row)
            if row[5] == "secondary":
                assert count >= table["k"]
        cells, found = attack_report.audit(_emitted(wh, model, table["k"], table["hide_zeros"]))
        assert [f for f in found if f.reason == "exact"] == [], (i, table, rows)
        assert all(isinstance(cell, Cell) for cell in cells.values())
        showing += any(cell.status is Status.PUBLISHED for cell in cells.values())
    assert refused <= RANDOM_EXAMPLES // 4, f"{refused} of {RANDOM_EXAMPLES} random tables refused"
    # a tiny table can rightly be hidden whole (fewer than k people, or every cell needed to
    # protect the others), but the audit above must have had published cells to reason from
    assert showing >= RANDOM_EXAMPLES // 2, f"only {showing} of {RANDOM_EXAMPLES} random tables show a cell"


# --- larger random tables (DuckDB): lines longer than the search's bounds, many picks per round ---

LARGE_EXAMPLES = 6


@st.composite
def _large_random_table(draw: st.DrawFn) -> dict[str, Any]:
    """A table of 10 to 24 rows and 9 to 13 columns whose thin cells cluster in thin rows and thin
    columns (expected counts a row effect times a column effect, as bench-table's), so that lines
    are longer than _table_pick_limit and many cells are open at once; people reused within a
    row when `overlap` (totals that are not sums)."""
    n_rows, n_columns = draw(st.integers(10, 24)), draw(st.integers(9, 13))
    k = draw(st.sampled_from([3, 4, 5]))
    seed = draw(st.integers(0, 2**32 - 1))
    overlap = draw(st.booleans())
    rng = np.random.default_rng(seed)
    expected = np.exp(np.log(1.6 * k) + rng.normal(0, 0.9, n_rows)[:, None] + rng.normal(0, 0.9, n_columns)[None, :])
    counts = rng.poisson(expected)
    events: list[tuple[str, str, str]] = []
    person = 0
    for i in range(n_rows):
        reused: list[str] = []
        for j in range(n_columns):
            for _ in range(int(counts[i, j])):
                if overlap and reused and rng.random() < 0.2:
                    who = reused[int(rng.integers(len(reused)))]
                else:
                    person += 1
                    who = f"p{person}"
                    reused.append(who)
                events.append((who, f"r{i:02d}", f"c{j:02d}"))
    return {"k": k, "hide_zeros": draw(st.booleans()), "events": events}


@pytest.fixture(scope="module")
def large_random_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                       ) -> tuple[Warehouse, list[dict[str, Any]], Any]:
    return _build_random(make_warehouse, tmp_path_factory, "table_large", _large_random_table(), LARGE_EXAMPLES)


def test_the_batched_search_discloses_nothing_on_larger_random_tables(
        large_random_built: tuple[Warehouse, list[dict[str, Any]], Any]) -> None:
    """The set-based search (bounded candidates, many picks a round) on tables whose lines are
    longer than its bounds: every mark true, and the LP audit, independent of the SQL, finds no
    exact disclosure. The screened audit (attack.audit) reports exactly what two LPs per hidden
    cell report, with and without a protection width."""
    wh, examples, result = large_random_built
    assert len(examples) == LARGE_EXAMPLES
    released = 0
    for i, table in enumerate(examples):
        model = f"table_large_model_{i}"
        if result.status(f"{PROJECT}.{model}") != "success":
            assert "(check table_search)" in result.output, result.output[-3000:]
            continue
        released += 1
        people: dict[tuple[str | None, str | None], set[str]] = defaultdict(set)
        for who, r, c in table["events"]:
            people[(r, c)].add(who)
        truth = _counts(people)
        lo = 0 if table["hide_zeros"] else 1
        for row in _rows(wh, model):
            count = truth.get(_key(row), 0)
            assert (row[5] == "primary") == (lo <= count < table["k"]), (i, row)
            assert row[4] == (count if row[5] == "published" else None), (i, row)
            if row[5] == "secondary":
                assert count >= table["k"]
        emitted = _emitted(wh, model, table["k"], table["hide_zeros"])
        cells, found = attack_report.audit(emitted)
        assert [f for f in found if f.reason == "exact"] == [], (i, table["k"])
        full_cells, relations, knowledge = attack_report.table(emitted)
        every = intervals(full_cells, relations, knowledge)
        for width in (0.0, 3.0):
            assert attack.audit(full_cells, relations, knowledge, width) == findings(every.values(), width), (i, width)
        plan = _plan(wh, model)
        secondaries = sum(1 for cell in cells.values() if cell.status is Status.SECONDARY)
        assert plan["rounds"] <= 17 and plan["secondary"] == secondaries
        # lines longer than the bounds: a first try within them, then every cube for the cells left
        assert plan["first_try_bounds"] == {"limit": 8, "moves": None}, plan["first_try_bounds"]
    assert released >= LARGE_EXAMPLES - 1, f"only {released} of {LARGE_EXAMPLES} larger random tables released"


# --- random three-way tables with subtotals (DuckDB): a hierarchy's regions, two flat dimensions ---

THREE_WAY_EXAMPLES = 12


@st.composite
def _random_three_way(draw: st.DrawFn) -> dict[str, Any]:
    """Leaves g0.. under two or three regions, two or three values of a and of c; counts of 0 to
    ~14 per leaf cell, people reused across c when `overlap` (totals along c not additive)."""
    leaves = draw(st.integers(3, 5))
    regions = {f"g{i}": f"R{draw(st.integers(0, 2))}" for i in range(leaves)}
    a_values, c_values = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    k = draw(st.sampled_from([3, 4, 5]))
    overlap = draw(st.booleans())
    events: list[tuple[str, ...]] = []
    person = 0
    for g in regions:
        for a in range(a_values):
            reused: list[str] = []
            for c in range(c_values):
                for _ in range(draw(st.one_of(st.integers(0, k), st.integers(0, 14)))):
                    if overlap and reused and draw(st.booleans()):
                        who = draw(st.sampled_from(reused))
                    else:
                        person += 1
                        who = f"p{person}"
                        reused.append(who)
                    events.append((who, g, f"a{a}", f"c{c}"))
    return {"k": k, "hide_zeros": draw(st.booleans()), "events": events, "regions": regions}


Node = tuple[int, str | None]


def _chains(table: dict[str, Any]) -> list[Any]:
    """Each dimension's path from a value to the total, as (level, label) nodes."""
    return [lambda g: [(0, g), (1, table["regions"][g]), (2, None)],
            lambda a: [(0, a), (1, None)], lambda c: [(0, c), (1, None)]]


def _unprotectable(table: dict[str, Any], truth: dict[tuple[Node, ...], int]) -> int:
    """Brute force, independent of the SQL: the primaries of a three-way table on no cube of cells
    that are primaries or publishable (at least k) which can move one step one way. A move along
    a dimension: +1 on a value and every node above it, -1 on another value and every node above
    it (cancelling from their common ancestor up), or +1 on a value and every node above it. The
    bounds: a primary's mark; a secondary at least k; in a line that is not additive, a part at
    most its total unless the total moves with it, a total above its largest part left standing."""
    k, lo = table["k"], 0 if table["hide_zeros"] else 1
    chains = _chains(table)
    nodes = [sorted({key[d] for key in truth}, key=repr) for d in range(3)]
    parent = [{chain[j]: chain[j + 1] for v in nodes[d] if v[0] == 0 for chain in [chains[d](v[1])]
               for j in range(len(chain) - 1)} for d in range(3)]
    children: list[dict[Node, list[Node]]] = [defaultdict(list) for _ in range(3)]
    for d in range(3):
        for child, up in parent[d].items():
            children[d][up].append(child)

    def moves(d: int) -> list[dict[Node, int]]:
        out = []
        for a in (v for v in nodes[d] if v[0] == 0):
            up_a = chains[d](a[1])
            out.append(dict.fromkeys(up_a, 1))
            for b in (v for v in nodes[d] if v[0] == 0 and v != a):
                up_b = chains[d](b[1])
                out.append({**{x: 1 for x in up_a if x not in up_b}, **{x: -1 for x in up_b if x not in up_a}})
        return out

    def swap(key: tuple[Node, ...], d: int, node: Node) -> tuple[Node, ...]:
        return (*key[:d], node, *key[d + 1:])

    def fits(key: tuple[Node, ...], step: int, cube: tuple[dict[Node, int], ...]) -> bool:
        n = truth[key]
        primary = lo <= n < k
        if not (n < k - 1 if primary else True) if step > 0 else not (n > lo if primary else n > k):
            return False
        for d in range(3):
            up = parent[d].get(key[d])
            if step > 0 and up is not None and up not in cube[d]:
                parts = [truth[swap(key, d, c)] for c in children[d][up]]
                if truth[swap(key, d, up)] < sum(parts) and n + 1 > truth[swap(key, d, up)]:
                    return False
            if step < 0 and children[d].get(key[d]):
                below = {c: truth[swap(key, d, c)] for c in children[d][key[d]]}
                standing = [v for c, v in below.items() if c not in cube[d]]
                if n < sum(below.values()) and n - 1 < max(standing, default=0):
                    return False
        return True

    all_moves = [moves(d) for d in range(3)]
    primaries = [key for key, n in truth.items() if lo <= n < k]
    bad = 0
    for p in primaries:
        found = False
        for cube in itertools.product(*[[m for m in all_moves[d] if p[d] in m] for d in range(3)]):
            corners = [((x, y, z), s0 * s1 * s2) for x, s0 in cube[0].items() for y, s1 in cube[1].items()
                       for z, s2 in cube[2].items()]
            if all(lo <= truth[c] < k or truth[c] >= k for c, _ in corners) and any(
                    all(fits(c, way * sign, cube) for c, sign in corners) for way in (1, -1)):
                found = True
                break
        bad += not found
    return bad


def _three_way_truth(table: dict[str, Any]) -> dict[tuple[tuple[int, str | None], ...], int]:
    """Every cell's people, keyed by (level, label) per dimension (None for a total)."""
    people: dict[tuple[tuple[int, str | None], ...], set[str]] = defaultdict(set)
    for who, g, a, c in table["events"]:
        for gk in ((0, g), (1, table["regions"][g]), (2, None)):
            for ak in ((0, a), (1, None)):
                for ck in ((0, c), (1, None)):
                    people[(gk, ak, ck)].add(who)
    nodes = [sorted({key[i] for key in people}, key=repr) for i in range(3)]
    return {(g, a, c): len(people.get((g, a, c), set())) for g in nodes[0] for a in nodes[1] for c in nodes[2]}


@pytest.fixture(scope="module")
def three_way_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                    ) -> tuple[Warehouse, list[dict[str, Any]], Any]:
    return _build_random(make_warehouse, tmp_path_factory, "table_three", _random_three_way(), THREE_WAY_EXAMPLES)


def test_random_three_way_tables_with_subtotals_disclose_nothing(
        three_way_built: tuple[Warehouse, list[dict[str, Any]], Any]) -> None:
    """Hypothesis-drawn three-way tables whose first dimension has regions as subtotals: every
    count is Python's, every mark true, and the LP audit finds no exact disclosure."""
    wh, examples, result = three_way_built
    assert len(examples) == THREE_WAY_EXAMPLES
    released = tried_once = 0
    for i, table in enumerate(examples):
        model = f"table_three_model_{i}"
        truth = _three_way_truth(table)
        # refused exactly when some primary lies on no cube at all (brute force, in Python):
        # small tables with k = 3 and zeros shown, whose primaries of 1 and 2 pin most cubes
        refused = result.status(f"{PROJECT}.{model}") != "success"
        assert refused == (_unprotectable(table, truth) > 0), (i, table["k"], table["hide_zeros"])
        if refused:
            assert f"refused to publish {PROJECT}.{model} (check table_search)" in result.output
            continue
        released += 1
        rows = _mart(wh, model)
        assert len(rows) == len(truth), i
        lo = 0 if table["hide_zeros"] else 1
        for row in rows:
            key = tuple((int(row[f"{d}_level"]), None if int(row[f"{d}_level"]) == top else row[d])
                        for d, top in (("g", 2), ("a", 1), ("c", 1)))
            count = truth[key]
            assert (row["status"] == "primary") == (lo <= count < table["k"]), (i, row)
            assert row["people"] == (count if row["status"] == "published" else None), (i, row)
            assert row["status"] != "secondary" or count >= table["k"]
        _, found = attack_report.audit(_emitted(wh, model, table["k"], table["hide_zeros"]))
        assert [f for f in found if f.reason == "exact"] == [], (i, table)
        # one try, against every cube, where the cubes through a cell are few: at most L (L + 1)
        # moves along a dimension of L leaves, 4,096 cubes in all; else a first try bounded to 8
        # leaves per line and 6 moves per dimension
        leaves = [len({event[d] for event in table["events"]}) for d in (1, 2, 3)]
        cubes = math.prod(count * (count + 1) for count in leaves)
        pruned = any(count > 8 or count * (count + 1) > 6 for count in leaves)
        expected = {"limit": 8, "moves": 6} if pruned and cubes > 4096 else None
        assert _plan(wh, model)["first_try_bounds"] == expected, (i, leaves)
        tried_once += expected is None
    assert tried_once > 0  # (the branch table above is the three-way table with bounds)
    assert released >= THREE_WAY_EXAMPLES // 2, f"only {released} of {THREE_WAY_EXAMPLES} three-way tables released"


# --- random linked pairs (DuckDB): the same people by g x and by g y, searched and audited together ---

LINKED_EXAMPLES = 16


@st.composite
def _random_linked(draw: st.DrawFn) -> dict[str, Any]:
    """Leaves g0.. (under regions as subtotals, or flat), sometimes a second shared dimension a,
    two or three values of x and of y; 0 to ~8 people per leaf cell of g (a) x y, some in two
    cells of their g (totals that are not sums) when `overlap`."""
    leaves = draw(st.integers(3, 5))
    regions = {f"g{i}": f"R{draw(st.integers(0, 1))}" for i in range(leaves)} if draw(st.booleans()) else None
    shared_a = draw(st.booleans())
    xs, ys = draw(st.integers(2, 3)), draw(st.integers(2, 3))
    k = draw(st.sampled_from([3, 4, 5]))
    overlap = draw(st.booleans())
    events: list[tuple[str, ...]] = []
    person = 0
    for g in range(leaves):
        for a in range(2 if shared_a else 1):
            reused: list[str] = []
            for x, y in itertools.product(range(xs), range(ys)):
                for _ in range(draw(st.one_of(st.integers(0, 2), st.integers(0, 8)))):
                    if overlap and reused and draw(st.booleans()):
                        who = draw(st.sampled_from(reused))
                    else:
                        person += 1
                        who = f"p{person}"
                        reused.append(who)
                    events.append((who, f"g{g}", f"a{a}", f"x{x}", f"y{y}"))
    return {"k": k, "hide_zeros": draw(st.booleans()), "events": events, "regions": regions,
            "shared_a": shared_a, "linked": True}


@pytest.fixture(scope="module")
def linked_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                 ) -> tuple[Warehouse, list[dict[str, Any]], Any]:
    return _build_random(make_warehouse, tmp_path_factory, "table_linked", _random_linked(), LINKED_EXAMPLES)


def test_random_linked_pairs_disclose_nothing_together(
        linked_built: tuple[Warehouse, list[dict[str, Any]], Any]) -> None:
    """Hypothesis-drawn pairs: the second table's shared totals carry the first's marks, and the LP
    audit of the two as one system (independent of the SQL) finds no exact disclosure."""
    wh, examples, result = linked_built
    assert len(examples) == LINKED_EXAMPLES
    together = unsafe_alone = 0
    for i, table in enumerate(examples):
        first, second = f"table_linked_a_{i}", f"table_linked_model_{i}"
        if result.status(f"{PROJECT}.{first}") != "success":
            assert f"refused to publish {PROJECT}.{first} (check table_search)" in result.output
            continue
        if result.status(f"{PROJECT}.{second}") != "success":
            assert f"refused to publish {PROJECT}.{second} (check table_search)" in result.output
            continue
        together += 1
        dims = ["g", "a"] if table["shared_a"] else ["g"]
        shared = [{tuple((row[d], row[f"{d}_level"]) for d in dims): row["status"]
                   for row in _mart(wh, model) if row[f"{own}_level"] == 1}
                  for model, own in ((first, "x"), (second, "y"))]
        assert shared[0] == shared[1] and shared[0], i
        pair = [_emitted(wh, model, table["k"], table["hide_zeros"]) for model in (first, second)]
        assert [f for f in attack_report.audit_many(pair)[1] if f.reason == "exact"] == [], (i, table)
        if result.status(f"{PROJECT}.{second}_alone") == "success":
            alone = _emitted(wh, f"{second}_alone", table["k"], table["hide_zeros"])
            unsafe_alone += any(f.reason == "exact" for f in attack_report.audit_many([pair[0], alone])[1])
    assert together >= LINKED_EXAMPLES // 2, f"only {together} of {LINKED_EXAMPLES} linked pairs released"
    # the draws are ones where linking matters: released alone, some second tables give the
    # first's hidden cells away
    print(f"linked pairs: {together} of {LINKED_EXAMPLES} released together; {unsafe_alone} unsafe released alone")
    assert unsafe_alone >= 1


def test_the_screened_audit_finds_what_the_full_audit_finds() -> None:
    """attack.audit (a few LPs per group, then two per cell left) against two LPs per hidden cell,
    on the worked example, its weakened pattern and the bridge pattern: the same findings."""
    truth = {("Mon", "Views"): 42, ("Mon", "Saves"): 8, ("Mon", "Follows"): 2, ("Tue", "Views"): 38,
             ("Tue", "Saves"): 3, ("Tue", "Follows"): 5, ("Wed", "Views"): 51, ("Wed", "Saves"): 9,
             ("Wed", "Follows"): 8, ("Thu", "Views"): 12, ("Thu", "Saves"): 2, ("Thu", "Follows"): 3,
             ("Fri", "Views"): 29, ("Fri", "Saves"): 6, ("Fri", "Follows"): 5}
    for day in DAYS:
        truth[(day, "Total")] = sum(truth[(day, a)] for a in ACTIONS)
    for action in [*ACTIONS, "Total"]:
        truth[("Total", action)] = sum(truth[(d, action)] for d in DAYS)
    patterns = [set(HIDDEN), set(HIDDEN) - {("Mon", "Saves")},
                {("Mon", "Follows"), ("Tue", "Saves"), ("Thu", "Saves"), ("Thu", "Follows"), ("Tue", "Follows"),
                 ("Mon", "Views"), ("Mon", "Total"), ("Wed", "Views"), ("Wed", "Total")}]
    for hidden in patterns:
        marks: dict[tuple[str, str], str | int] = {
            key: (("<5" if value < 5 else "·") if key in hidden else value) for key, value in truth.items()}
        cells, relations = grid(DAYS, ACTIONS, marks)
        for width in (0.0, 2.5, 6.0):
            assert attack.audit(cells, relations, Knowledge(k=5), width) == findings(
                intervals(cells, relations, Knowledge(k=5)).values(), width), (hidden, width)


def test_bench_table_runs_and_its_figures_are_real(tmp_path: Path) -> None:
    """`python -m kanon_tools bench-table` on a tiny table (DuckDB): one markdown row whose
    figures are numbers, and 0 exact disclosures."""
    out = tmp_path / "bench_table.md"
    run = subprocess.run([sys.executable, "-m", "kanon_tools", "bench-table", "--rows", "30", "--columns", "8",
                          "--workdir", str(tmp_path / "work"), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    rows = [line for line in out.read_text().splitlines() if line.startswith("| duckdb |")]
    assert len(rows) == 1 and rows[0] in run.stdout
    fields = [field.strip().replace(",", "") for field in rows[0].strip("|").split("|")]
    assert fields[1] == "30 x 8"
    events, k, cells, primaries, secondaries, rounds = (int(v) for v in fields[2:8])
    search, release, floor, read, audit = (float(v) for v in fields[8:13])
    hidden, exact = int(fields[13]), int(fields[14])
    assert k == 5 and cells == 31 * 9 and events > 0 and primaries > 0 and rounds >= 0
    assert hidden == primaries + secondaries and exact == 0
    assert 0 < search <= release and floor > 0 and read > 0 and audit >= 0
