"""kanon.release_table on DuckDB and Postgres: the issue's worked example cell for cell, the audit
trail, the attacker's LP audit (kanon_tools.attack, independent of the SQL that chose the
pattern) on what was published, the gate's refusals, odd labels, and random tables.

Fixtures: integration_tests/seeds/table (the worked example's events; odd labels) and
integration_tests/models/table. One build per warehouse, one run of the refusals, a few CLI
calls; the random tables are one more build, on DuckDB.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import INTEGRATION, ROOT, DbtProject, Warehouse, copy_project
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kanon_tools import attack, attack_report
from kanon_tools.attack import Cell, Knowledge, Status, findings, grid, intervals

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
PLAN_KEYS = {"kind", "k", "relation", "privacy_unit", "count_rows", "row", "column", "count_column", "hide_zeros",
             "total_label", "null_unit", "dimensions", "cells", "primary", "secondary", "published",
             "non_additive_totals", "rounds", "search_seconds", "refused"}


@pytest.fixture(scope="module")
def built(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse]:
    wh = make_warehouse(warehouse_kind, "table")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    project.run("build", *NODES)
    return project, wh


def _rows(wh: Warehouse, model: str) -> list[tuple[Any, ...]]:
    """The mart's rows: row label, row level, column label, column level, count, status, display, additive."""
    return wh.query(f"select * from {wh.relation(model)}")


def _emitted(wh: Warehouse, model: str, k: int, zeros_hidden: bool = False) -> dict[str, Any]:
    """What kanon.cli_table_cells emits, read from the mart directly."""
    cells = [[r[0], int(r[1]), r[2], int(r[3]), r[4], r[5], r[7]] for r in _rows(wh, model)]
    return {"relation": model, "k": k, "zeros_hidden": zeros_hidden, "cells": cells}


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
    for label, level, action, action_level, people, status, display, additive in rows:
        hidden = HIDDEN.get((label, action))
        assert status == (hidden.lower() if hidden else "published")
        assert people == (None if hidden else int(display))
        assert (additive is None) == (level == 0 and action_level == 0)
        assert additive in (None, True)  # one person, one cell: every total is the sum of its cells


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
    weakened = dict(emitted, cells=[[*row[:4], shown, "published", row[6]] if (row[0], row[2]) == ("Mon", "Saves")
                                    else row for row in emitted["cells"]])
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
        "table_tampered_bridge": ("no_exact_disclosure", "1 hidden cell(s) lie on no rectangle of hidden cells"),
        "table_worked": ("null_unit", "2 event(s) have a NULL privacy unit and null_unit='error'"),
    }
    releases = wh.relation("kanon_audit_releases", AUDIT)
    for model, (check, reason) in expected.items():
        assert result.status(f"{PROJECT}.{model}") == "error", model
        assert f"(check {check})" in result.output
        [(failed, why)] = wh.query(f"select failed_check, reason from {releases} where report = '{model}' "
                                   f"and status = 'REFUSED' and invocation_id = '{result.invocation_id}'")
        assert failed == check and why.startswith(reason), (model, why)
    assert sorted(_rows(wh, "table_worked"), key=repr) == before  # the previous release stands
    published = {name for (name,) in wh.query(
        "select table_name from information_schema.tables where table_schema = '" + wh.schema + "'")}
    assert not {"table_tampered_below_k", "table_tampered_line", "table_tampered_bridge"} & published


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
    assert attack_report.audit(_emitted(wh, "table_hidden_zeros", 5, zeros_hidden=True))[1] == []
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
        if row[1] == 0 and row[3] == 1:
            assert row[7] is (sums[_key(row)] == truth[_key(row)])
    assert any(row[7] is False for row in rows)
    assert attack_report.audit(_emitted(wh, "table_odd", 3))[1] == []


def test_the_attack_command_reads_the_mart_through_dbt(built: tuple[DbtProject, Warehouse]) -> None:
    """`python -m kanon_tools attack` as a release gate: exit 0 on the worked example, 1 with a
    protection width its Tue cells do not reach; keys and counts only, never a hidden value."""
    _, wh = built

    def attack(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kanon_tools", "attack", "--project-dir", str(INTEGRATION), *args],
                              env=wh.env(), capture_output=True, text=True, timeout=300, check=False)

    ok = attack("--report", "table_worked")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "6 hidden (4 primary, 2 secondary); 0 exact disclosure(s)" in ok.stdout
    narrow = attack("--report", "table_worked", "--protection", "2.5")
    assert narrow.returncode == 1, narrow.stdout + narrow.stderr
    findings_lines = narrow.stdout.splitlines()[1:]
    assert findings_lines == ["  NARROW Tue x Follows (secondary)", "  NARROW Tue x Saves (primary)"]
    assert "FAIL: 2 hidden cell(s)" in narrow.stderr
    assert attack("--report", "table_worked", "--protection", "-1").returncode == 2


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


def _draw_examples() -> list[dict[str, Any]]:
    """Twenty tables drawn by hypothesis (derandomized, so the same every run), built together in
    one dbt invocation rather than one per example."""
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=2 * RANDOM_EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_random_table())
    def collect(table: dict[str, Any]) -> None:
        if table["events"] and len(drawn) < RANDOM_EXAMPLES:
            drawn.append(table)

    collect()
    return drawn


def _build_random(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory, name: str,
                  examples: list[dict[str, Any]]) -> tuple[Warehouse, Any]:
    """Every example's events as a seed and its release as a model, built in one dbt invocation."""
    project_dir = copy_project(INTEGRATION, tmp_path_factory.mktemp(name) / "project")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    seeds, models = project_dir / "seeds" / name, project_dir / "models" / name
    seeds.mkdir(parents=True)
    models.mkdir(parents=True)
    for i, table in enumerate(examples):
        with (seeds / f"{name}_{i}.csv").open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(["person", "r", "c"])
            writer.writerows(table["events"])
        (models / f"{name}_model_{i}.sql").write_text(
            f"{{{{ config(materialized='k_anonymous', k={table['k']}) }}}}\n"
            f"{{{{ kanon.release_table(ref('{name}_{i}'), privacy_unit='person', row_dimension='r', "
            f"column_dimension='c', hide_zeros={str(table['hide_zeros']).lower()}) }}}}\n")
    wh = make_warehouse("duckdb", name)
    project = DbtProject(project_dir, wh)
    project.run("deps")
    result = project.run("build", "--select", f"path:seeds/{name}", f"path:models/{name}",
                         "package:kanon,path:models/audit", expect_ok=None)
    return wh, result


@pytest.fixture(scope="module")
def random_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                 ) -> Iterator[tuple[Warehouse, list[dict[str, Any]], Any]]:
    examples = _draw_examples()
    wh, result = _build_random(make_warehouse, tmp_path_factory, "table_random", examples)
    yield wh, examples, result


def test_random_tables_disclose_nothing_to_the_lp_audit(
        random_built: tuple[Warehouse, list[dict[str, Any]], Any]) -> None:
    wh, examples, result = random_built
    assert len(examples) == RANDOM_EXAMPLES
    refused = 0
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
        assert any(cell.status is Status.PUBLISHED for cell in cells.values())
    assert refused <= RANDOM_EXAMPLES // 4, f"{refused} of {RANDOM_EXAMPLES} random tables refused"


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


def _draw_large_examples() -> list[dict[str, Any]]:
    drawn: list[dict[str, Any]] = []

    @settings(max_examples=2 * LARGE_EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(_large_random_table())
    def collect(table: dict[str, Any]) -> None:
        if table["events"] and len(drawn) < LARGE_EXAMPLES:
            drawn.append(table)

    collect()
    return drawn


@pytest.fixture(scope="module")
def large_random_built(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
                       ) -> Iterator[tuple[Warehouse, list[dict[str, Any]], Any]]:
    examples = _draw_large_examples()
    wh, result = _build_random(make_warehouse, tmp_path_factory, "table_large", examples)
    yield wh, examples, result


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
    assert released >= LARGE_EXAMPLES - 1, f"only {released} of {LARGE_EXAMPLES} larger random tables released"


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
