"""kanon.release_table on DuckDB and Postgres: the issue's worked example cell for cell, a
three-way table with a hierarchy's subtotals, a linked pair of tables, the audit trail, the
attacker's LP audit (kanon_tools.attack, independent of the SQL that chose the pattern) on what
was published, the gate's refusals, bad inputs and odd labels. Random tables:
test_table_random.py.

Fixtures: integration_tests/seeds/table (the worked example's events; odd labels; patrons by
branch, age band and action with a branch hierarchy; people by day, kind and branch for the
linked pair) and integration_tests/models/table. One build per warehouse, one run of the
refusals, one of the bad inputs, a few CLI calls.
"""
from __future__ import annotations

import csv
import json
import subprocess
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from kanon_tools import attack, attack_report
from kanon_tools.attack import Knowledge, findings, grid, intervals
from support import INTEGRATION, ROOT
from support.commands import kanon_tools_cli
from support.projects import DbtProject, assert_bad_inputs_refused
from support.warehouses import Warehouse

from table.marts import AUDIT, PROJECT, cell_counts, cell_key, emitted_cells, mart_dicts, mart_rows, release_plan

pytestmark = pytest.mark.dbt

SEEDS = INTEGRATION / "seeds" / "table"
NODES = ("--select", "path:seeds/table", "path:models/table", "package:kanon,path:models/audit")
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


def _truth(path: Path, unit: str, row: str, column: str) -> dict[tuple[str | None, str | None], set[str]]:
    """People per (row, column) from a seed, in Python: None for an empty value (dbt seeds load it as NULL)."""
    people: dict[tuple[str | None, str | None], set[str]] = defaultdict(set)
    with path.open(encoding="utf-8", newline="") as f:
        for record in csv.DictReader(f):
            if record[unit]:
                people[(record[row] or None, record[column] or None)].add(record[unit])
    return people


def test_the_worked_example_is_published_cell_for_cell(built: tuple[DbtProject, Warehouse]) -> None:
    _, wh = built
    rows = mart_rows(wh, "table_worked")
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
    plan = release_plan(wh, "table_worked")
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
    emitted = emitted_cells(wh, "table_worked", 5)
    cells, found = attack_report.audit(emitted)
    assert len([c for c in cells.values() if c.value is None]) == 6
    assert found == []
    truth = cell_counts(_truth(SEEDS / "table_activity.csv", "user_id", "day", "action"))
    shown = truth[((0, "Mon"), (0, "Saves"))]
    weakened = dict(emitted, cells=[[row[0], shown, "published", row[3]]
                                    if (row[0][0][0], row[0][1][0]) == ("Mon", "Saves") else row
                                    for row in emitted["cells"]])
    _, found = attack_report.audit(weakened)
    assert [(attack_report.describe(f.key), f.reason) for f in found] == [("Mon x Follows", "exact")]


def test_a_line_rule_pattern_with_a_bridge_is_caught_by_the_audit(built: tuple[DbtProject, Warehouse]) -> None:
    """Every line has two hidden cells or none, but Mon Follows is the only link between two
    rectangles (the pattern of table_tampered_bridge, which the gate refuses): the LP gives it away."""
    truth = cell_counts(_truth(SEEDS / "table_activity.csv", "user_id", "day", "action"))
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
    before = sorted(mart_rows(wh, "table_worked"), key=repr)
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
    assert sorted(mart_rows(wh, "table_worked"), key=repr) == before  # the previous release stands
    published = {name for (name,) in wh.query(
        "select table_name from information_schema.tables where table_schema = '" + wh.schema + "'")}
    assert not {"table_tampered_below_k", "table_tampered_line", "table_tampered_bridge", "table_missing_leaf",
                "table_tampered_protection", "table_linked_tampered", "table_linked_stale",
                "table_all_hidden"} & published


def test_events_without_a_person_are_left_out_and_counted(built: tuple[DbtProject, Warehouse]) -> None:
    """The worked example's two events of nobody change no count (the worked example holds); a
    release counting rows counts them, with zeros hidden too, and the audit finds nothing."""
    _, wh = built
    rows = mart_rows(wh, "table_hidden_zeros")
    events: dict[tuple[Any, Any], int] = defaultdict(int)
    with (SEEDS / "table_activity.csv").open(encoding="utf-8", newline="") as f:
        for record in csv.DictReader(f):
            for r in ((0, record["day"]), (1, None)):
                for c in ((0, record["action"]), (1, None)):
                    events[(r, c)] += 1
    for row in rows:
        count = events[cell_key(row)]
        assert row[5] == "primary" if count < 5 else row[5] in ("published", "secondary")
        assert row[4] == (count if row[5] == "published" else None)
    emitted = emitted_cells(wh, "table_hidden_zeros", 5, zeros_hidden=True, count_column="events")
    assert attack_report.audit(emitted)[1] == []
    assert release_plan(wh, "table_hidden_zeros")["count_rows"] is True


def test_odd_labels_and_totals_that_are_not_sums(built: tuple[DbtProject, Warehouse]) -> None:
    """Quotes, non-ASCII, a NULL region and a real region 'Total' (told apart from the total by its
    level); people in several cells, so totals are distinct counts below the sums of their cells,
    and say so. Every count matches Python's, and the LP audit with inequalities finds nothing."""
    _, wh = built
    people = _truth(SEEDS / "table_odd_events.csv", "visitor", "Région", "Kind's")
    truth = cell_counts(people)
    rows = mart_rows(wh, "table_odd")
    assert {cell_key(row) for row in rows} == set(truth)
    assert {row[0] for row in rows if row[1] == 0} == {"O'Brien", "Zürich", '"quoted"', None, "Total"}
    for row in rows:
        count = truth[cell_key(row)]
        assert (row[5] == "primary") == (0 < count < 3), row
        assert row[4] == (count if row[5] == "published" else None)
    sums = {key: sum(v for other, v in truth.items() if other[1][0] == 0 and other[0] == key[0])
            for key in truth if key[1][0] == 1}
    for row in rows:
        if row[1] == 0 and row[3] == 1:  # a region's total: the sum of its kinds, or not
            assert row[8] is (sums[cell_key(row)] == truth[cell_key(row)])
    assert any(row[8] is False for row in rows)
    assert attack_report.audit(emitted_cells(wh, "table_odd", 3, count_column="visitors"))[1] == []


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
    rows = mart_dicts(wh, "table_three_way")
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
    assert release_plan(wh, "table_three_way")["first_try_bounds"] == {"limit": 8, "moves": 6}
    emitted = emitted_cells(wh, "table_three_way", 5, count_column="patrons")
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
    plain = attack_report.audit(emitted_cells(wh, "table_worked", 5), protection=3)[1]
    assert {(attack_report.describe(f.key), f.reason) for f in plain} == {
        ("Tue x Saves", "narrow"), ("Tue x Follows", "narrow")}
    rows = mart_rows(wh, "table_worked_protected")
    hidden = {(r[0], r[2]): r[5] for r in rows if r[5] != "published"}
    assert hidden == {("Mon", "Follows"): "primary", ("Tue", "Saves"): "primary", ("Thu", "Saves"): "primary",
                      ("Thu", "Follows"): "primary", ("Mon", "Saves"): "secondary", ("Thu", "Views"): "secondary",
                      ("Tue", "Views"): "secondary"}
    cells, found = attack_report.audit(emitted_cells(wh, "table_worked_protected", 5), protection=3)
    assert found == [] and sum(1 for cell in cells.values() if cell.value is None) == 7
    plan = release_plan(wh, "table_worked_protected")
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
             for r in mart_rows(wh, "table_worked_protected")}
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
        truth = cell_counts(_truth(SEEDS / "table_linked_events.csv", "person", "day", column))
        rows = mart_dicts(wh, model)
        labels = [*sorted({row[column] for row in rows if row[f"{column}_level"] == 0}), "Total"]
        shown = {(row["day"], row[column]): row["display"] for row in rows}
        assert {day: [shown[(day, c)] for c in labels] for day in marks} == marks, model
        for row in rows:
            key = ((int(row["day_level"]), row["day"] if row["day_level"] == 0 else None),
                   (int(row[f"{column}_level"]), row[column] if row[f"{column}_level"] == 0 else None))
            assert row["people"] == (truth[key] if row["status"] == "published" else None), (model, row)
    pair = [emitted_cells(wh, model, 5) for model in ("table_linked_kind", "table_linked_branch")]
    alone = emitted_cells(wh, "table_linked_branch_alone", 5)
    for table in (*pair, alone):
        assert attack_report.audit(table)[1] == []
    assert attack_report.audit_many(pair)[1] == []
    found = attack_report.audit_many([pair[0], alone])[1]
    # Thursday's day total (the grand total less four published), and Wednesday North (Wednesday's
    # total, published by day x kind, less Wednesday East)
    assert sorted((f.key, f.reason) for f in found) == [
        (("branch", "0", '"North"', "day", "0", '"Wed"'), "exact"), (("day", "0", '"Thu"'), "exact")]
    plan = release_plan(wh, "table_linked_branch")
    assert plan["linked"]["model"] == "table_linked_kind" and plan["linked"]["dimension"] == "kind"
    assert (plan["primary"], plan["secondary"], plan["cells"]) == (3, 3, 18)  # its own cells only
    assert release_plan(wh, "table_linked_kind")["linked"] is None


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
