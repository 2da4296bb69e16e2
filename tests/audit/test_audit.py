"""The audit trail: every decision of every release, atomic with the release, kept apart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import uuid
from typing import Any

import pytest
from kanon_tools.dbt_runner import DBT
from oracles import counts as oracle
from support import INTEGRATION, ROOT
from support.cell_fates import cell_fates
from support.commands import kanon_tools_cli
from support.projects import DbtProject
from support.warehouses import Warehouse, postgres_role, require_postgres, role_can_select

pytestmark = pytest.mark.dbt

MART = "circulation_by_branch_age_title"
FLAGSHIP_LADDER = [{"title": 1}, {"age_band": 1}, {"title": 2}, {"branch": 1}, {"age_band": 2}]
DIMS = ("branch", "age_band", "title")
AUDIT = "kanon_audit"
INTEGRATION_NODES = (
    "--select", "path:seeds/release", "path:models/release", "path:models/audit", "package:kanon,path:models/audit",
)


# --- the flagship report, released three times ------------------------------------------------

@pytest.fixture(scope="module")
def flagship(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse, list[str]]:
    wh = make_warehouse(warehouse_kind, "audit")
    project = DbtProject(ROOT, wh)
    runs = [project.run("build"), project.run("run", "--select", MART), project.run("build", "--full-refresh")]
    return project, wh, [str(r.invocation_id) for r in runs]


def _oracle_decisions(wh: Warehouse) -> dict[tuple[str, ...], tuple[object, ...]]:
    """What the plain-Python oracle says every finest cell's audit row must hold."""
    raw = wh.relation("circulation_events", "example_raw")
    events = [dict(zip(("patron_token", *DIMS), row, strict=True))
              for row in wh.query(f"select patron_token, branch, age_band, title from {raw}")]
    hierarchies = {
        dim: oracle.Hierarchy(wh.query(f"select * from {wh.relation('hierarchy_' + dim, 'example_raw')}"))
        for dim in DIMS
    }
    release = oracle.release_counts(
        events, "patron_token", DIMS, hierarchies, k=5, ladder=FLAGSHIP_LADDER, count_column="patrons"
    )
    people: dict[tuple[str, ...], set[str]] = {}
    expected: dict[tuple[str, ...], tuple[object, ...]] = {}
    for event, fate in zip(events, release.fates, strict=True):
        cell = tuple(str(event[d]) for d in DIMS)
        people.setdefault(cell, set()).add(str(event["patron_token"]))
        if fate.outcome == "released":
            assert fate.row is not None  # a released event names its row
            row = release.rows[fate.row]
            decision = "PASS" if fate.step == 0 else "GENERALIZE"
            expected[cell] = (decision, fate.step, row.labels, row.levels, row.count)
        else:
            expected[cell] = ("SUPPRESS", None, None, None, None)
    return {cell: (len(people[cell]), *outcome) for cell, outcome in expected.items()}


def _audited_decisions(
    project: DbtProject, wh: Warehouse, invocation: str,
) -> dict[tuple[str, ...], tuple[object, ...]]:
    """Every finest cell's fate in one release, derived from the trail by kanon.audit_cell_fates;
    the cells (and their people) are the events' own, as the oracle's."""
    raw = wh.relation("circulation_events", "example_raw")
    fates = cell_fates(project, MART, f"select branch, age_band, title, count(distinct patron_token) as people "
                                      f"from {raw} group by branch, age_band, title", invocation)
    out: dict[tuple[str, ...], tuple[object, ...]] = {}
    for fate in fates:
        cell = tuple(json.loads(str(fate["cell_labels"]))[d] for d in DIMS)
        assert cell not in out, f"cell {cell} audited twice in one release"
        rl = json.loads(str(fate["released_labels"])) if fate["released_labels"] else None
        lv = json.loads(str(fate["released_levels"])) if fate["released_levels"] else None
        out[cell] = (
            fate["people"], fate["decision"], fate["ladder_step"],
            tuple(rl[d] for d in DIMS) if rl else None,
            tuple(lv[d] for d in DIMS) if lv else None,
            fate["released_people"],
        )
    return out


def test_every_release_has_a_summary_row_and_the_exact_decisions(
    flagship: tuple[DbtProject, Warehouse, list[str]],
) -> None:
    project, wh, invocations = flagship
    summaries = wh.query(
        "select invocation_id, status, cells_in, cells_passed, cells_generalized, cells_suppressed, rows_released, "
        f"count_column from {wh.relation('kanon_audit_releases', AUDIT)} where report = '{MART}' order by released_at"
    )
    assert [s[0] for s in summaries] == invocations  # three releases, --full-refresh erased nothing
    assert {s[1] for s in summaries} == {"RELEASED"}
    (published,) = wh.query(f"select count(*) from {wh.relation(MART, 'example')}")[0]

    expected = _oracle_decisions(wh)
    for invocation, _, cells_in, passed, generalized, suppressed, rows_released, count_column in summaries:
        audited = _audited_decisions(project, wh, str(invocation))
        assert audited == expected
        decisions = [d[1] for d in audited.values()]
        assert (cells_in, passed, generalized, suppressed) == (
            len(decisions), decisions.count("PASS"), decisions.count("GENERALIZE"), decisions.count("SUPPRESS")
        )
        assert rows_released == published
        assert count_column == "patrons"


def test_audit_lives_in_its_own_schema_and_nothing_else_is_left(
    flagship: tuple[DbtProject, Warehouse, list[str]],
) -> None:
    _, wh, _ = flagship
    tables = set(wh.query(
        "select table_schema, table_name from information_schema.tables "
        f"where table_schema like '{wh.schema}%'"
    ))
    assert tables == {
        (f"{wh.schema}_example", MART),
        (f"{wh.schema}_example_raw", "circulation_events"),
        (f"{wh.schema}_example_raw", "hierarchy_age_band"),
        (f"{wh.schema}_example_raw", "hierarchy_branch"),
        (f"{wh.schema}_example_raw", "hierarchy_title"),
        (f"{wh.schema}_{AUDIT}", "kanon_audit_groups"),
        (f"{wh.schema}_{AUDIT}", "kanon_audit_hierarchies"),
        (f"{wh.schema}_{AUDIT}", "kanon_audit_releases"),
    }


def test_analyses_read_the_latest_release_and_the_rate_history(
    flagship: tuple[DbtProject, Warehouse, list[str]],
) -> None:
    """The shipped analyses run on the trail: cell fates are replayed for the latest release."""
    project, wh, invocations = flagship
    raw = wh.relation("circulation_events", "example_raw")
    cells = f"select distinct branch, age_band, title from {raw}"
    project.run("compile", "--select", "kanon_cell_fates", "kanon_suppression_rate_over_time",
                "--vars", json.dumps({"kanon_fates_report": MART, "kanon_fates_cells": cells}))
    latest = wh.query(project.compiled_test_sql("kanon_cell_fates"))
    (cells_in,) = wh.query(
        f"select cells_in from {wh.relation('kanon_audit_releases', AUDIT)} "
        f"where invocation_id = '{invocations[-1]}'"
    )[0]
    assert len(latest) == cells_in > 0
    assert {row[4] for row in latest} <= {"PASS", "GENERALIZE", "SUPPRESS"}  # every cell was in the release
    expected = _oracle_decisions(wh)
    assert sorted(tuple(json.loads(str(row[3]))[d] for d in DIMS) for row in latest) == sorted(expected)
    history = wh.query(project.compiled_test_sql("kanon_suppression_rate_over_time"))
    assert [row[0] for row in history] == [MART] * len(invocations)
    assert [row[-1] for row in history][1:] == [False] * (len(invocations) - 1)  # same policy throughout


def test_a_cell_the_release_never_held_has_no_fate(flagship: tuple[DbtProject, Warehouse, list[str]]) -> None:
    """A cell with no events in the release is not reported as suppressed: its decision is NULL."""
    project, _, _ = flagship
    (fate,) = cell_fates(project, MART, "select 'NOWHERE' as branch, '13-17' as age_band, 'No such title' as title")
    assert (fate["decision"], fate["ladder_step"], fate["released_labels"]) == (None, None, None)


def test_audit_cli_scans_the_mart_and_summarizes_the_trail(
    flagship: tuple[DbtProject, Warehouse, list[str]],
) -> None:
    _, wh, _ = flagship
    env = {**os.environ, **wh.env()}

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return kanon_tools_cli([*args, "--target", wh.kind], env, ROOT)

    ok = cli("audit", "--report", MART, "--min-cell", "5")
    assert ok.returncode == 0, ok.stderr
    assert "0 row(s) below 5" in ok.stdout
    too_strict = cli("audit", "--report", MART, "--min-cell", "6")
    assert too_strict.returncode == 1
    assert "FAIL" in too_strict.stderr
    assert "Coping" not in too_strict.stdout + too_strict.stderr  # counts only, never labels
    log = cli("audit-log", "--last", "5")
    assert log.returncode == 0, log.stderr
    assert log.stdout.count(MART) == 3
    assert "WARNING" not in log.stdout  # same data, same policy: the rate did not move


def test_a_trail_from_before_the_compact_groups_keeps_its_history(warehouse_kind: str, make_warehouse: Any) -> None:
    """A trail made when releases wrote one row per finest cell (kanon_audit_cells) and before
    the releases' kind and plan columns: a release adds the new tables and columns, and every
    old row stays as it was."""
    wh = make_warehouse(warehouse_kind, "upgrade")
    cells, releases = wh.relation("kanon_audit_cells", AUDIT), wh.relation("kanon_audit_releases", AUDIT)
    wh.execute(f"create schema if not exists {cells.rsplit('.', 1)[0]}")
    wh.execute(
        f"create table {cells} (invocation_id varchar, report_unique_id varchar, cell_labels varchar, people bigint, "
        "decision varchar, ladder_step integer, released_labels varchar, released_levels varchar, "
        "released_people bigint)"
    )
    wh.execute(f"insert into {cells} (invocation_id, report_unique_id, decision) "
               "values ('before', 'model.x.old', 'PASS')")
    wh.execute(
        f"create table {releases} (invocation_id varchar, released_at timestamp, report varchar, "
        "report_unique_id varchar, k integer, policy_fingerprint varchar, status varchar)"
    )
    wh.execute(f"insert into {releases} (invocation_id, released_at, report, report_unique_id, k, status) "
               "values ('before', cast('2026-01-01 00:00:00' as timestamp), 'old', 'model.x.old', 5, 'RELEASED')")
    result = DbtProject(ROOT, wh).run("build")
    rows = wh.query(f"select invocation_id, report, k, status, release_kind from {releases} order by released_at")
    assert rows == [("before", "old", 5, "RELEASED", None), (result.invocation_id, MART, 5, "RELEASED", "counts")]
    assert wh.query(f"select invocation_id, decision from {cells}") == [("before", "PASS")]
    (groups,) = wh.query(f"select count(*) from {wh.relation('kanon_audit_groups', AUDIT)} "
                         f"where invocation_id = '{result.invocation_id}'")[0]
    assert groups > 0


def test_suppression_rate_jumps_are_flagged_with_their_cause() -> None:
    from kanon_tools.audit import Release, jumps

    def rel(at: str, fingerprint: str, rate: float) -> Release:
        return Release("r", at, "RELEASED", fingerprint, 5, 100, int(rate * 100), rate, None)

    history = [rel("2026-01-01", "aaaa", 0.10), rel("2026-01-02", "bbbb", 0.30), rel("2026-01-03", "bbbb", 0.31),
               rel("2026-01-04", "bbbb", 0.50)]
    warnings = jumps(history, 0.05)
    assert len(warnings) == 2
    assert "after a policy change (aaaa -> bbbb)" in warnings[0]
    assert "same policy" in warnings[1]


def test_report_reader_sees_the_mart_and_nothing_else(make_warehouse: Any) -> None:
    """Postgres with a real role: SELECT on the safe mart, permission denied on the raw events,
    the hierarchies and the audit trail."""
    require_postgres()
    wh = make_warehouse("postgres", "roles")
    with postgres_role(wh, "reader") as reader:
        DbtProject(ROOT, wh).run("build", "--vars", f"{{kanon_example_readers: [{reader}]}}")
        schemas = [s for (s,) in wh.query(f"select nspname from pg_namespace where nspname like '{wh.schema}%'")]
        for schema in schemas:  # so that every denial below is the table's own, not the schema's
            wh.execute(f'grant usage on schema "{schema}" to "{reader}"')
        assert role_can_select(wh, reader, wh.relation(MART, "example"))
        assert wh.query(f"select count(*) from {wh.relation(MART, 'example')}")[0][0] > 0
        denied = [wh.relation("circulation_events", "example_raw"), wh.relation("hierarchy_title", "example_raw"),
                  wh.relation("kanon_audit_groups", AUDIT), wh.relation("kanon_audit_hierarchies", AUDIT),
                  wh.relation("kanon_audit_releases", AUDIT)]
        for relation in denied:
            assert not role_can_select(wh, reader, relation), relation


# --- refusals, replays, crashes and resets (integration project) -------------------------------

@pytest.fixture(scope="module")
def integration(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse]:
    wh = make_warehouse(warehouse_kind, "auditit")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    project.run("build", *INTEGRATION_NODES)
    return project, wh


def _count(wh: Warehouse, table: str, where: str) -> int:
    return int(str(wh.query(f"select count(*) from {wh.relation(table, AUDIT)} where {where}")[0][0]))


def test_refused_release_leaves_a_refused_row_and_no_groups(integration: tuple[DbtProject, Warehouse]) -> None:
    project, wh = integration
    result = project.run("run", "--select", "release_gate", "--vars", "{release_gate_min_people: 1}", expect_ok=False)
    invocation = result.invocation_id
    rows = wh.query(
        f"select status, reason, cells_in from {wh.relation('kanon_audit_releases', AUDIT)} "
        f"where invocation_id = '{invocation}'"
    )
    assert rows == [("REFUSED", "1 row(s) have people below k=2 or NULL, NaN or infinite", None)]
    assert _count(wh, "kanon_audit_groups", f"invocation_id = '{invocation}'") == 0
    leftovers = wh.query(
        "select table_name from information_schema.tables where table_name like '%kanon_staging%' "
        f"or (table_schema like '{wh.schema}%' and table_name like '%dbt_tmp%')"
    )
    assert leftovers == []


def test_replaying_an_invocation_does_not_duplicate(integration: tuple[DbtProject, Warehouse]) -> None:
    project, wh = integration
    invocation = f"replay-{uuid.uuid4()}"
    project.run("run-operation", "replay_audit_insert", "--args", f"{{invocation: {invocation}}}")
    assert _count(wh, "kanon_audit_releases", f"invocation_id = '{invocation}'") == 1


CRASH_HOOK = {
    "postgres": "select pg_sleep(120)",
    "duckdb": "select count(*) from range(1000000000000) as t(i) where hash(i) = 0",
}


def _kill_during_hook(project: DbtProject, wh: Warehouse, hook_var: str) -> None:
    """Run release_crash with k=3 and a slow hook, SIGKILL dbt while the hook runs."""
    log = project.state_dir / "logs" / "dbt.log"
    start = log.stat().st_size if log.exists() else 0
    hook = CRASH_HOOK[wh.kind]
    env = {**wh.env(), "DBT_TARGET_PATH": str(project.state_dir / "target"),
           "DBT_LOG_PATH": str(project.state_dir / "logs")}
    proc = subprocess.Popen(
        [DBT, "run", "--select", "release_crash", "--project-dir", str(project.project_dir),
         "--vars", json.dumps({"crash_k": 3, hook_var: hook})],
        cwd=project.project_dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if log.exists():
            with log.open(errors="replace") as f:
                f.seek(start)
                # the statement dbt executes stands on its own line (the vars echo does not)
                if any(line.strip() == hook for line in f):
                    break
        assert proc.poll() is None, "dbt finished before it could be killed"
        time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail("the slow hook never started")
    time.sleep(1.0)  # let the hook's statement reach the warehouse
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    if wh.kind == "postgres":
        # The server notices a dead client only when the sleep ends: end its session as a crash would.
        wh.query("select pg_terminate_backend(pid) from pg_stat_activity where query like '%pg_sleep(120)%' "
                 "and pid <> pg_backend_pid()")


def _crash_state(wh: Warehouse) -> tuple[list[tuple[object, ...]], int, int]:
    mart = sorted(wh.query(f"select * from {wh.relation('release_crash')}"))
    return (mart, _count(wh, "kanon_audit_releases", "report = 'release_crash'"),
            _count(wh, "kanon_audit_groups", "report_unique_id = 'model.kanon_integration_tests.release_crash'"))


def test_sigkill_inside_the_transaction_keeps_the_old_release_and_no_new_audit_rows(
    integration: tuple[DbtProject, Warehouse],
) -> None:
    project, wh = integration
    before = _crash_state(wh)
    assert before[1] >= 1 and before[2] > 0  # the baseline release (k=2) and its audit rows
    _kill_during_hook(project, wh, "crash_hook")
    assert _crash_state(wh) == before
    assert wh.query(
        "select table_name from information_schema.tables "
        f"where table_schema like '{wh.schema}%' and table_name like 'release_crash_%'"
    ) == []


def test_sigkill_after_the_commit_keeps_the_new_release_with_all_its_audit_rows(
    integration: tuple[DbtProject, Warehouse],
) -> None:
    project, wh = integration
    before_mart, before_releases, before_cells = _crash_state(wh)
    _kill_during_hook(project, wh, "crash_hook_after_commit")
    mart, releases, groups = _crash_state(wh)
    assert mart != before_mart and all(int(str(row[-1])) >= 3 for row in mart)  # the k=3 release landed
    assert releases == before_releases + 1
    (latest,) = wh.query(
        f"select invocation_id from {wh.relation('kanon_audit_releases', AUDIT)} where report = 'release_crash' "
        "order by released_at desc limit 1"
    )[0]
    # every published row is on the record as a released group of the new release
    assert _count(wh, "kanon_audit_groups", f"invocation_id = '{latest}' and decision <> 'SUPPRESS'") == len(mart)
    assert groups > before_cells


@pytest.mark.parametrize(
    ("older_than_days", "shown"),
    [("1.5", "got 1.5"), ("true", "got True"), ("'3'", "got the text '3'"), ("-1", "got -1")],
)
def test_reset_refuses_a_retention_that_is_not_a_whole_number_of_days(
    integration: tuple[DbtProject, Warehouse], older_than_days: str, shown: str,
) -> None:
    """older_than_days is a whole number >= 0: 1.5 (a float), true (a bool, which Jinja counts
    as the number 1) and '3' (text) are refused naming the argument, and nothing is deleted."""
    project, wh = integration
    # a release old enough for any retention to take, with one cell row; removed again below
    invocation = f"typed-retention-{uuid.uuid4()}"
    wh.execute(
        f"insert into {wh.relation('kanon_audit_releases', AUDIT)} (invocation_id, released_at, report, "
        f"report_unique_id, k, policy_fingerprint, count_column, status) values ('{invocation}', "
        "cast('2020-01-01 00:00:00' as timestamp), 'typed_report', 'model.x.typed_report', 5, 'typed', 'people', "
        "'RELEASED')"
    )
    wh.execute(
        f"insert into {wh.relation('kanon_audit_groups', AUDIT)} (invocation_id, report_unique_id, labels, "
        f"people, decision) values ('{invocation}', 'model.x.typed_report', '{{\"a\":\"1\"}}', 1, 'SUPPRESS')"
    )
    try:
        before = (_count(wh, "kanon_audit_releases", "1 = 1"), _count(wh, "kanon_audit_groups", "1 = 1"))
        refused = project.run(
            "run-operation", "kanon_reset_audit", "--args",
            f"{{confirm: 'erase kanon audit history', older_than_days: {older_than_days}}}", expect_ok=False,
        )
        assert f"kanon_reset_audit: older_than_days must be a whole number >= 0, {shown}" in refused.output, (
            refused.output[-3000:]
        )
        assert (_count(wh, "kanon_audit_releases", "1 = 1"), _count(wh, "kanon_audit_groups", "1 = 1")) == before
    finally:
        for table in ("kanon_audit_groups", "kanon_audit_releases"):
            wh.execute(f"delete from {wh.relation(table, AUDIT)} where invocation_id = '{invocation}'")


def test_reset_needs_explicit_confirmation(integration: tuple[DbtProject, Warehouse]) -> None:
    project, wh = integration
    # an old published release with two group rows (they know their age only through it), and a
    # hierarchy snapshot only it names; a recent release keeps the snapshot it names
    wh.execute(
        f"insert into {wh.relation('kanon_audit_releases', AUDIT)} (invocation_id, released_at, report, "
        "report_unique_id, k, policy_fingerprint, count_column, status, release_plan) values ('old-release', "
        "cast('2025-01-01 00:00:00' as timestamp), 'old_report', 'model.x.old_report', 5, 'old', 'people', 'RELEASED', "
        "'{\"dimensions\": [{\"hierarchy\": \"old-hash\"}]}')"
    )
    wh.execute(
        f"insert into {wh.relation('kanon_audit_groups', AUDIT)} (invocation_id, report_unique_id, labels, "
        "people, decision) values ('old-release', 'model.x.old_report', '{\"a\":\"1\"}', 1, 'SUPPRESS'), "
        "('old-release', 'model.x.old_report', '{\"a\":\"2\"}', 2, 'SUPPRESS')"
    )
    wh.execute(
        f"insert into {wh.relation('kanon_audit_hierarchies', AUDIT)} (content_hash, leaf, level, label) "
        "values ('old-hash', 'a', 1, '*')"
    )
    total = _count(wh, "kanon_audit_releases", "1 = 1")
    groups = _count(wh, "kanon_audit_groups", "1 = 1")
    snapshots = _count(wh, "kanon_audit_hierarchies", "1 = 1")
    assert groups > 2 and snapshots > 1
    refused = project.run("run-operation", "kanon_reset_audit", expect_ok=False)
    assert "needs explicit confirmation" in refused.output
    assert _count(wh, "kanon_audit_releases", "1 = 1") == total
    project.run("run-operation", "kanon_reset_audit", "--args",
                "{confirm: 'erase kanon audit history', older_than_days: 30}")
    # retention: only the old release is older than 30 days (every other row, the replayed one
    # included, is stamped by the warehouse's clock); of the groups, only the old release's two
    # go, and of the snapshots only the one no remaining release names
    assert _count(wh, "kanon_audit_releases", "1 = 1") == total - 1
    assert _count(wh, "kanon_audit_releases", "report = 'old_report'") == 0
    assert _count(wh, "kanon_audit_groups", "1 = 1") == groups - 2
    assert _count(wh, "kanon_audit_groups", "invocation_id = 'old-release'") == 0
    assert _count(wh, "kanon_audit_hierarchies", "1 = 1") == snapshots - 1
    project.run("run-operation", "kanon_reset_audit", "--args", "{confirm: 'erase kanon audit history'}")
    for table in ("kanon_audit_releases", "kanon_audit_groups", "kanon_audit_hierarchies"):
        assert _count(wh, table, "1 = 1") == 0
