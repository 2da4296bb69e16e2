"""Every command that reads the audit trail, over every kind of row the trail can hold: a clean
output and exit code, never a traceback (issue 49).

A host project writes the trail as kanon does: a count release, then the same report again with
rows held (on_small_change='hold'), then refused at compile time (k NULL, and the policy, plan,
count column and input rows with it); a record release; a table with totals; a hand-written
release refused at the gate; a release that failed on a warehouse error. Then, written by hand,
what only other warehouses or other kanon versions write: a PENDING row (Spark writes one before
its swap, ADR 10) newer than everything, and a bare row with every column NULL but its key (the
trail's DDL allows it), with a group row as bare. Over that trail: audit-log (with --last 3 and
--last 100), receipt of every release kind and state (text and JSON), report, audit (the scan,
which reads the trail for the count column) and kanon.audit_cell_fates. `attack` reads the
published table and the graph, not the trail: not here.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support import ROOT
from support.cell_fates import cell_fates
from support.commands import kanon_tools_cli
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

PROJECT = "trail_host"
# t_counts at k=3, branch by branch: night 1 A has 4 people, B 3, C 1 (suppressed); night 2 adds a
# fifth to A (changed by 1: held at 4 under on_small_change='hold')
EVENTS = [(f"a{i}", "A", 1) for i in range(4)] + [(f"b{i}", "B", 1) for i in range(3)] + [("c0", "C", 1),
                                                                                            ("a9", "A", 2)]
MODELS = {
    "t_events_now.sql": "{{ config(materialized='table') }}\n"
                        "select * from {{ ref('t_events') }} where night <= {{ var('t_night', 1) }}\n",
    "t_counts.sql": "{{ config(materialized='k_anonymous', k=var('t_k', 3)) }}\n"
                    "{{ kanon.release_counts(relation=ref('t_events_now'), privacy_unit='person', "
                    "dimensions=['branch'], on_small_change='hold') }}\n",
    "t_records.sql": "{{ config(materialized='k_anonymous', k=3, max_suppression=0.5) }}\n"
                     "{{ kanon.release_records(ref('t_people'), columns={'person': 'drop', "
                     "'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60, 80]]}, "
                     "'sex': 'quasi_identifier'}) }}\n",
    "t_table.sql": "{{ config(materialized='k_anonymous', k=3) }}\n"
                   "{{ kanon.release_table(ref('t_activity'), privacy_unit='user_id', row_dimension='day', "
                   "column_dimension='action') }}\n",
    # refused at the gate (min_count)
    "t_hand.sql": "{{ config(materialized='k_anonymous', k=3) }}\nselect 'x' as cell, 1 as people\n",
    # fails on the warehouse, before the gate: an 'error' row
    "t_error.sql": "{{ config(materialized='k_anonymous', k=3) }}\n"
                   "select 'x' as cell, cast('many' as integer) as people\n",
}
REPORTS = ("t_counts", "t_records", "t_table", "t_hand", "t_error", "t_bare")


def _csv(header: str, rows: list[tuple[Any, ...]]) -> str:
    return header + "\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows)


def _write_host(path: Path) -> None:
    for folder in ("models", "seeds"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "dbt_project.yml").write_text(
        f"name: {PROJECT}\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  trail_host:\n"
        "    t_events: {+column_types: {person: varchar(10), branch: varchar(10)}}\n"
        "    t_people: {+column_types: {person: varchar(10), sex: varchar(1)}}\n"
        "    t_activity: {+column_types: {user_id: varchar(10), day: varchar(3), action: varchar(10)}}\n")
    (path / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    (path / "seeds" / "t_events.csv").write_text(_csv("person,branch,night", EVENTS))
    (path / "seeds" / "t_people.csv").write_text(
        _csv("person,age,sex", [(f"r{i}", 20 + (i * 7) % 60, "FM"[i % 2]) for i in range(24)]))
    activity = [(f"{day}{action}{i}", day, action) for day, action, n in
                (("Mon", "View", 5), ("Mon", "Save", 1), ("Tue", "View", 4), ("Tue", "Save", 6)) for i in range(n)]
    (path / "seeds" / "t_activity.csv").write_text(_csv("user_id,day,action", activity))
    for name, text in MODELS.items():
        (path / "models" / name).write_text(text)


def _invocations(wh: Warehouse, report: str) -> list[tuple[str, str, str | None]]:
    """(invocation, status, failed_check) of a report's rows, oldest first."""
    releases = wh.relation("kanon_audit_releases", "kanon_audit")
    return [tuple(row) for row in wh.query(
        f"select invocation_id, status, failed_check from {releases} where report = '{report}' order by released_at")]


@pytest.fixture(scope="module")
def trail(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
          ) -> tuple[DbtProject, Warehouse]:
    path = tmp_path_factory.mktemp("trail_readers") / PROJECT
    _write_host(path)
    wh = make_warehouse(warehouse_kind, "trail")
    project = DbtProject(path, wh)
    project.run("deps")
    project.run("build", expect_ok=False)  # t_hand and t_error fail, the rest is released
    project.run("run", "--select", "t_events_now", "t_counts", "--vars", "{t_night: 2}")
    project.run("run", "--select", "t_counts", "--vars", "{t_k: five}", expect_ok=False)
    releases = wh.relation("kanon_audit_releases", "kanon_audit")
    groups = wh.relation("kanon_audit_groups", "kanon_audit")
    # what Spark writes before its swap (ADR 10), newer than anything: a copy of the held release
    names = [name for (name,) in wh.query(
        "select column_name from information_schema.columns where table_schema = "
        f"'{wh.schema}_kanon_audit' and table_name = 'kanon_audit_releases' order by ordinal_position")]
    pending = {"invocation_id": "'pending-1'", "released_at": "cast('2100-01-01' as timestamp)", "status": "'PENDING'"}
    wh.execute(f"insert into {releases} ({', '.join(names)}) select {', '.join(pending.get(n, n) for n in names)} "
               f"from {releases} where report = 't_counts' and status = 'RELEASED' and rows_held > 0")
    # a row with nothing but its key, and a group row as bare
    wh.execute(f"insert into {releases} (invocation_id, report, report_unique_id) "
               f"values ('bare-1', 't_bare', 'model.{PROJECT}.t_bare')")
    wh.execute(f"insert into {groups} (invocation_id, report_unique_id) values ('bare-1', 'model.{PROJECT}.t_bare')")
    return project, wh


def test_the_trail_holds_every_kind_of_row(trail: tuple[DbtProject, Warehouse]) -> None:
    """The premise: each kind of row is there."""
    _, wh = trail
    counts = _invocations(wh, "t_counts")
    assert [(status, check) for _, status, check in counts] == [
        ("RELEASED", None), ("RELEASED", None), ("REFUSED", "compile"), ("PENDING", None)]
    releases = wh.relation("kanon_audit_releases", "kanon_audit")
    refused = wh.query(f"select k, policy_fingerprint, count_column, release_plan, input_rows from {releases} "
                       "where failed_check = 'compile'")
    assert refused == [(None, None, None, None, None)]
    assert wh.query(f"select rows_held from {releases} where report = 't_counts' and status = 'RELEASED'") in (
        [(0,), (1,)], [(None,), (1,)])
    assert [(s, c) for _, s, c in _invocations(wh, "t_hand")] == [("REFUSED", "min_count")]
    assert [(s, c) for _, s, c in _invocations(wh, "t_error")] == [("REFUSED", "error")]
    assert [s for _, s, _ in _invocations(wh, "t_records")] == ["RELEASED"]
    assert [s for _, s, _ in _invocations(wh, "t_table")] == ["RELEASED"]
    assert [s for _, s, _ in _invocations(wh, "t_bare")] == [None]


def _cli(trail: tuple[DbtProject, Warehouse], *args: str) -> subprocess.CompletedProcess[str]:
    project, wh = trail
    return kanon_tools_cli([*args, "--target", wh.kind], {**os.environ, **wh.env()}, project.project_dir)


def _clean(proc: subprocess.CompletedProcess[str], code: int = 0) -> str:
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output
    assert proc.returncode == code, output
    return proc.stdout


def test_audit_log_lists_every_row(trail: tuple[DbtProject, Warehouse]) -> None:
    shown = _clean(_cli(trail, "audit-log", "--last", "100"))
    assert "None" not in shown  # a NULL is shown as '-'
    listed = [line for line in shown.splitlines() if line.startswith("t_")]
    assert sorted({line.split()[0] for line in listed}) == sorted(REPORTS)
    assert len(listed) == 9
    refused = [line for line in listed if line.startswith("t_counts") and "REFUSED" in line]
    assert len(refused) == 1 and "kanon.release_counts" in refused[0]  # its reason; k and policy shown as '-'
    last = [line for line in _clean(_cli(trail, "audit-log", "--last", "3")).splitlines() if line.startswith("t_")]
    # the command: the compile refusal and the PENDING row among the last (a NULL released_at
    # sorts last on both warehouses)
    assert len(last) == 3 and any("PENDING" in line for line in last) and any("REFUSED" in line for line in last)


@pytest.mark.parametrize("report, invocation", [
    ("t_counts", None),  # the latest: PENDING
    ("t_counts", "RELEASED"),  # held rows
    ("t_counts", "REFUSED"),  # refused at compile time, k NULL
    ("t_records", None), ("t_table", None), ("t_hand", None), ("t_error", None), ("t_bare", None),
])
def test_receipt_of_every_row(trail: tuple[DbtProject, Warehouse], report: str, invocation: str | None) -> None:
    args = ["receipt", "--report", report]
    if invocation is not None:
        args += ["--invocation", [i for i, status, _ in _invocations(trail[1], report) if status == invocation][-1]]
    text = _clean(_cli(trail, *args))
    assert text.startswith(f"Receipt of {report} ") and "None" not in text  # a NULL is shown as '-'
    if trail[1].kind == "duckdb":  # the same Python on every warehouse (each call parses the project)
        out = json.loads(_clean(_cli(trail, *args, "--format", "json")))
        assert out["report"] == report


def test_report_shows_every_row(trail: tuple[DbtProject, Warehouse], tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    assert "report of 9 release(s) written" in _clean(_cli(trail, "report", "-o", str(page)))
    html = page.read_text(encoding="utf-8")
    assert all(report in html for report in REPORTS)


def test_the_scan_reads_the_trail_and_refuses_in_one_line(trail: tuple[DbtProject, Warehouse]) -> None:
    assert "0 row(s) below 3" in _clean(_cli(trail, "audit", "--report", "t_counts", "--min-cell", "3"))
    for report in ("t_error", "t_bare"):  # never built; not a model at all
        proc = _cli(trail, "audit", "--report", report, "--min-cell", "3")
        _clean(proc, 1)
        assert len(proc.stderr.strip().splitlines()) == 1 and proc.stderr.startswith("kanon audit: ")


def test_cell_fates_read_the_latest_published_release(trail: tuple[DbtProject, Warehouse]) -> None:
    """Past the compile refusal and the PENDING row: the held release's groups."""
    project, _ = trail
    fates = cell_fates(project, "t_counts", "select 'A' as branch union all select 'C'")
    assert {(f["branch"], f["decision"]) for f in fates} == {("A", "PASS"), ("C", "SUPPRESS")}
