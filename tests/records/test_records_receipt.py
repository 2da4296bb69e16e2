"""`python -m kanon_tools receipt`: the receipt of one release, read from the audit trail.

A small host dbt project that installs kanon builds one hand-written k_anonymous model, which
creates the audit trail (and records a 'hand_written' release). Record-level releases are being
built elsewhere, so their rows are written into the trail by hand: a RELEASED 'records' release
with a plan as kanon.release_records records it, then a REFUSED one. The CLI runs as an operator
would, from inside the project, on both warehouses.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.receipt import receipt, render_text
from support import ROOT
from support.commands import kanon_tools_cli
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

HAND_WRITTEN = "receipt_report"
EXTRACT = "people_extract"
EXTRACT_ID = f"model.kanon_records_receipt.{EXTRACT}"
RELEASED, REFUSED = "records-released-1", "records-refused-2"
BUDGET_REASON = "1500 of 30162 records (5.0 %) would be suppressed, more than the budget of 1206 (4 %)"

PLAN: dict[str, Any] = {
    "kind": "records", "k": 5, "l": 2, "diversity": "distinct", "privacy_unit": "person_id",
    "budget": {"share": 0.04, "unit": "records", "limit": 1206},
    "metric": "height", "missing_value_policy": "star",
    "columns": [
        {"name": "age", "role": "quasi_identifier", "generalizer": "hierarchy", "depth": 4},
        {"name": "education", "role": "quasi_identifier", "generalizer": "bins", "depth": 3},
        {"name": "zip", "role": "quasi_identifier", "generalizer": "suppression", "depth": 1},
        {"name": "salary_class", "role": "sensitive"},
        {"name": "person_id", "role": "identifier", "pseudonym": True},
    ],
    "node": {"age": 2, "education": 1, "zip": 0},
    "loss": {"height": 3, "discernibility": 123456, "non_uniform_entropy": 1234.5},
    "lattice_size": 40, "nodes_evaluated": 17,
    "records_in": 30162, "people_in": 30162, "records_out": 29000, "classes": 123, "classes_suppressed": 4,
    "suppressed": {
        "too_small": {"classes": 3, "records": 1100, "people": 1100},
        "not_diverse": {"classes": 1, "records": 62, "people": 62},
        "missing_value": {"records": 0, "people": 0},
    },
    "rescue": [{"column": "education", "records": 12}, {"column": "age", "records": 40},
               {"column": "zip", "records": 0}],
    "refused": None,
}
REFUSED_PLAN: dict[str, Any] = {
    **PLAN, "records_out": 0, "classes": 0, "classes_suppressed": 0, "rescue": [],
    "suppressed": {"too_small": {"classes": 9, "records": 1500, "people": 1500}},
    "refused": {"check": "budget", "reason": BUDGET_REASON},
}


@pytest.fixture(scope="session")
def receipt_project(session_workdir: Path) -> Path:
    """A host dbt project with kanon installed and one hand-written k_anonymous model."""
    project = session_workdir / "records_receipt_project"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: kanon_records_receipt\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    (project / "models" / f"{HAND_WRITTEN}.sql").write_text(
        "{{ config(materialized='k_anonymous', k=2) }}\nselect 'a' as cell, 7 as people\n"
    )
    deps = DbtRunner(project, env={**os.environ, "DBT_PROFILES_DIR": str(ROOT)},
                     target_path=project / "target", log_path=project / "logs").run("deps")
    assert deps.ok, deps.output
    return project


def _insert(wh: Warehouse, invocation: str, released_at: str, report: str, unique_id: str, status: str,
            plan: dict[str, Any] | None, failed_check: str | None = None, reason: str | None = None) -> None:
    def literal(value: Any) -> str:
        return "null" if value is None else "'" + str(value).replace("'", "''") + "'"

    releases = wh.relation("kanon_audit_releases", "kanon_audit")
    rows = None if plan is None else plan.get("records_out")
    wh.execute(
        f"insert into {releases} (invocation_id, released_at, report, report_unique_id, k, policy_fingerprint, "
        "count_column, status, reason, failed_check, rows_released, people_in, release_kind, release_plan) values ("
        f"{literal(invocation)}, cast({literal(released_at)} as timestamp), {literal(report)}, {literal(unique_id)}, "
        f"5, 'f00dfeed', null, {literal(status)}, {literal(reason)}, {literal(failed_check)}, "
        f"{'null' if rows is None else rows}, 30162, 'records', {literal(None if plan is None else json.dumps(plan))})"
    )


@pytest.fixture(scope="module")
def trail(warehouse_kind: str, make_warehouse: Any, receipt_project: Path) -> Warehouse:
    """The trail of one real hand-written release, and two record-level releases written by hand."""
    wh = make_warehouse(warehouse_kind, "receipt")
    state = wh.workdir / f"{receipt_project.name}-{wh.kind}"
    built = DbtRunner(receipt_project, env=wh.env(), target_path=state / "target", log_path=state / "logs").run("build")
    assert built.ok, built.output[-4000:]
    _insert(wh, RELEASED, "2026-01-02 10:00:00", EXTRACT, EXTRACT_ID, "RELEASED", PLAN)
    _insert(wh, REFUSED, "2026-01-03 10:00:00", EXTRACT, EXTRACT_ID, "REFUSED", REFUSED_PLAN, "budget", BUDGET_REASON)
    # two reports of one name, from two packages
    _insert(wh, "twin-1", "2026-01-04 10:00:00", "twin", "model.a.twin", "RELEASED", {"kind": "records", "k": 5})
    _insert(wh, "twin-2", "2026-01-05 10:00:00", "twin", "model.b.twin", "RELEASED", {"kind": "records", "k": 5})
    return wh


def cli(wh: Warehouse, project: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`python -m kanon_tools receipt <args>` (in this process unless `process`)."""
    env = {**os.environ, **wh.env()}
    return kanon_tools_cli(["receipt", *args, "--target", wh.kind], env, project, process=process)


def receipt_json(wh: Warehouse, project: Path, *args: str) -> dict[str, Any]:
    proc = cli(wh, project, *args, "--format", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def duckdb_only(wh: Warehouse) -> None:
    """Each CLI call parses the project afresh (seconds): what is the same Python on every warehouse
    (the text form, --out, the generic receipt) runs on DuckDB only; the macro's reads on both."""
    if wh.kind != "duckdb":
        pytest.skip("the same Python on every warehouse: DuckDB covers it")


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *fragments: str) -> str:
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "Traceback" not in output, output
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("kanon receipt: "), output
    for fragment in fragments:
        assert fragment in lines[0], output
    return lines[0]


# --- record-level releases ------------------------------------------------------------------------

def test_a_released_records_receipt(trail: Warehouse, receipt_project: Path) -> None:
    out = receipt_json(trail, receipt_project, "--report", EXTRACT, "--invocation", RELEASED)
    assert {key: out[key] for key in ("report", "report_unique_id", "invocation_id", "status", "release_kind")} == {
        "report": EXTRACT, "report_unique_id": EXTRACT_ID, "invocation_id": RELEASED, "status": "RELEASED",
        "release_kind": "records"}
    assert out["released_at"].startswith("2026-01-02 10:00:00")
    assert (out["k"], out["l"], out["diversity"], out["privacy_unit"]) == (5, 2, "distinct", "person_id")
    assert out["budget"] == {"share": 0.04, "unit": "records", "limit": 1206, "used": 1162}
    assert out["node"] == {"age": 2, "education": 1, "zip": 0}
    assert out["loss"] == {"height": 3, "discernibility": 123456, "non_uniform_entropy": 1234.5}
    assert out["lattice"] == {"size": 40, "nodes_evaluated": 17}
    assert out["records"] == {"in": 30162, "out": 29000,
                              "suppressed": {"total": 1162, "too_small": 1100, "not_diverse": 62, "missing_value": 0}}
    assert out["people"]["in"] == 30162 and out["people"]["suppressed"]["total"] == 1162
    assert out["classes"] == {"total": 123, "released": 119, "suppressed": 4}
    assert out["hints"] == [  # most records rescued first; a rescue of nothing is no hint
        "one more generalization step on age would rescue 40 suppressed records",
        "one more generalization step on education would rescue 12 suppressed records",
    ]
    assert out["refused"] is None
    assert out["what_was_done"] == ("Released 29000 of 30162 records in 5-anonymous classes, 2-diverse (distinct) "
                                    "after generalizing age to level 2 of 4 and education to level 1 of 3; "
                                    "1162 records suppressed.")
    assert out["columns"][0] == {"name": "age", "role": "quasi_identifier", "generalizer": "hierarchy", "depth": 4,
                                 "level": 2}
    assert out["columns"][-1] == {"name": "person_id", "role": "identifier", "pseudonym": True}


def test_the_latest_release_is_read_by_default_and_a_refusal_says_why(trail: Warehouse, receipt_project: Path) -> None:
    out = receipt_json(trail, receipt_project, "--report", EXTRACT)
    assert (out["invocation_id"], out["status"]) == (REFUSED, "REFUSED")
    assert out["refused"] == {"check": "budget", "reason": BUDGET_REASON}
    assert out["what_was_done"] == f"Refused: nothing was published (check budget: {BUDGET_REASON})."
    assert out["records"]["out"] == 0 and out["hints"] == []
    # the unique id names the same report
    assert receipt_json(trail, receipt_project, "--report", EXTRACT_ID)["invocation_id"] == REFUSED


def test_the_text_receipt(trail: Warehouse, receipt_project: Path) -> None:
    duckdb_only(trail)
    # as a user runs it: a process of its own
    proc = cli(trail, receipt_project, "--report", EXTRACT, "--invocation", RELEASED, process=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    text = proc.stdout
    assert text.startswith(f"Receipt of {EXTRACT} (records release), invocation {RELEASED}\n")
    for line in (
        "  status        RELEASED",
        "  what was done Released 29000 of 30162 records in 5-anonymous classes",
        "  privacy       k=5, l=2 (distinct), privacy unit person_id",
        "  budget        at most 4.0% of the records (limit 1206), used 1162",
        "  columns       age: quasi_identifier, hierarchy at level 2 of 4",
        "                person_id: identifier, pseudonymized",
        "  loss          height 3 (the metric), discernibility 123456, non_uniform_entropy 1234.5",
        "  lattice       17 of 40 nodes evaluated",
        "  records       30162 in, 29000 out, 1162 suppressed (too_small 1100, not_diverse 62, missing_value 0)",
        "  classes       123 formed, 119 released, 4 suppressed",
        "  hints         one more generalization step on age would rescue 40 suppressed records",
        "                one more generalization step on education would rescue 12 suppressed records",
    ):
        assert line in text, text
    refused = cli(trail, receipt_project, "--report", EXTRACT)
    assert refused.returncode == 0 and f"  refused       check budget: {BUDGET_REASON}" in refused.stdout


def test_out_writes_the_receipt_to_a_file(trail: Warehouse, receipt_project: Path, tmp_path: Path) -> None:
    duckdb_only(trail)
    target = tmp_path / "receipt.json"
    proc = cli(trail, receipt_project, "--report", EXTRACT, "--invocation", RELEASED, "--format", "json",
               "--out", str(target))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert json.loads(target.read_text())["invocation_id"] == RELEASED
    assert str(target) in proc.stdout
    unwritable = cli(trail, receipt_project, "--report", EXTRACT, "--out", str(tmp_path / "no" / "such" / "dir.txt"))
    assert_one_line_error(unwritable, "cannot write", "dir.txt")


# --- other release kinds ---------------------------------------------------------------------------

def test_a_hand_written_release_gets_the_generic_receipt(trail: Warehouse, receipt_project: Path) -> None:
    duckdb_only(trail)
    out = receipt_json(trail, receipt_project, "--report", HAND_WRITTEN)
    assert (out["status"], out["release_kind"], out["k"]) == ("RELEASED", "hand_written", 2)
    assert out["counts"] == {"rows_released": 1, "cells_in": 1, "cells_suppressed": 0, "people_in": None,
                             "people_suppressed": 0}
    assert out["what_was_done"] == "Released 1 row, each describing at least 2 people; 0 of 1 cells suppressed."
    assert out["plan"] is None and out["refused"] is None
    text = cli(trail, receipt_project, "--report", HAND_WRITTEN).stdout
    assert "  counts        rows_released 1, cells_in 1, cells_suppressed 0" in text


# --- refusals -------------------------------------------------------------------------------------------

def test_an_unknown_report_or_invocation_is_one_line(trail: Warehouse, receipt_project: Path) -> None:
    assert_one_line_error(cli(trail, receipt_project, "--report", "no_such_report"),
                          "no release of 'no_such_report'", "kanon_audit_releases", "audit-log")
    assert_one_line_error(cli(trail, receipt_project, "--report", EXTRACT, "--invocation", "nope"),
                          f"no release of '{EXTRACT}' by invocation nope")


def test_a_name_two_reports_share_asks_for_the_unique_id(trail: Warehouse, receipt_project: Path) -> None:
    assert_one_line_error(cli(trail, receipt_project, "--report", "twin"),
                          "several reports are named 'twin'", "model.a.twin, model.b.twin", "unique id")
    assert receipt_json(trail, receipt_project, "--report", "model.a.twin")["invocation_id"] == "twin-1"


def test_no_audit_trail_is_one_line(make_warehouse: Any, receipt_project: Path) -> None:
    wh = make_warehouse("duckdb", "receiptnotrail")
    wh.execute("select 1")  # an existing, empty database file
    assert_one_line_error(cli(wh, receipt_project, "--report", EXTRACT), "no audit trail at", "nothing was released")


@pytest.mark.parametrize(
    ("args", "message"),
    [((), "the following arguments are required: --report"),
     (("--report", ""), "argument --report: must be a released model's name or unique id, got ''"),
     (("--report", "x", "--invocation", " "), "argument --invocation: must be a dbt invocation id, got ' '"),
     (("--report", "x", "--format", "xml"), "argument --format: invalid choice: 'xml'")],
)
def test_bad_arguments_exit_2(make_warehouse: Any, receipt_project: Path, args: tuple[str, ...], message: str) -> None:
    wh = make_warehouse("duckdb", "receiptargs")
    proc = cli(wh, receipt_project, *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and message in proc.stderr.strip().splitlines()[-1]
    assert not wh.duckdb_path.exists()  # refused before anything was opened


# --- the receipt itself: only the plan's known fields, missing ones tolerated --------------------------

def _release(plan: Any, status: str = "RELEASED") -> dict[str, Any]:
    return {"report": "r", "report_unique_id": "model.p.r", "invocation_id": "i", "released_at": "2026-01-01",
            "status": status, "reason": None, "failed_check": None, "k": 5, "release_kind": "records",
            "policy_fingerprint": "f", "rows_released": 7, "cells_in": None, "cells_suppressed": None,
            "people_in": None, "people_suppressed": None,
            "release_plan": plan if plan is None or isinstance(plan, str) else json.dumps(plan)}


def test_a_plan_with_missing_keys_still_gives_a_receipt() -> None:
    out = receipt(_release({"kind": "records"}))
    assert (out["k"], out["l"], out["budget"], out["records"]["out"], out["hints"]) == (5, None, None, 7, [])
    assert out["what_was_done"] == "Released 7 records in 5-anonymous classes."
    assert "Receipt of r (records release)" in render_text(out)
    unreadable = receipt(_release("{not json", status="REFUSED"))
    assert unreadable["plan_note"] == "the release's plan is not valid JSON"
    assert unreadable["what_was_done"] == "Refused: nothing was published."
    assert receipt(_release(None))["lattice"] == {"size": None, "nodes_evaluated": None}
    odd = receipt(_release({"k": "five", "node": {"age": "x"}, "rescue": [{"column": "age", "records": "many"}, 3],
                            "budget": {"share": True, "unit": "records"}, "columns": ["age", {"role": "keep"}]}))
    assert (odd["k"], odd["node"], odd["hints"], odd["columns"]) == (5, {"age": None}, [], [])
    assert odd["budget"] == {"share": None, "unit": "records", "limit": None, "used": None}


def test_only_known_fields_of_the_plan_reach_the_receipt() -> None:
    """A plan carrying a value (it never should) does not pass it on: only known fields are copied."""
    plan = {**PLAN, "sample": ["Alice Moreau"], "columns": [{**PLAN["columns"][0], "values": ["Alice Moreau"]}],
            "refused": None}
    out = receipt(_release(plan))
    for form in (json.dumps(out), render_text(out)):
        assert "Alice" not in form
