"""The audit CLI refuses bad input in one line: no traceback, no file created, a non-zero exit.

`python -m kanon_tools audit` and `audit-log` run as subprocesses with a support Warehouse's
environment (KANON_DUCKDB_PATH, KANON_SCHEMA), as an operator would run them: from inside a small
dbt project that installs kanon (`cli_project`: the models they are asked about, nothing built),
since they read through kanon's cli_ macros and the project's graph. The tables they read are
created directly, not by dbt. Also here: the dbt runner's parsing of dbt's output.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtError, DbtResult, DbtRunner
from support import ROOT
from support.commands import kanon_tools_cli
from support.warehouses import Warehouse

REPORT = "cli_report"
UNBUILT = "cli_unbuilt"


def cli(wh: Warehouse, *args: str, cwd: Path = ROOT, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`python -m kanon_tools <args> --target <kind>` (in this process unless `process`)."""
    return kanon_tools_cli([*args, "--target", wh.kind], {**os.environ, **wh.env()}, cwd, process=process)


@pytest.fixture(scope="session")
def cli_project(session_workdir: Path) -> Path:
    """A host dbt project with kanon installed and two models in the custom schema `cli`
    (<target schema>_cli): cli_report, which the tests create by hand, and cli_unbuilt, never built.
    And a macro that tries to write after kanon._cli_read_only()."""
    project = session_workdir / "cli_project"
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    (project / "dbt_project.yml").write_text(
        "name: kanon_cli_test\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "models:\n  kanon_cli_test:\n    +schema: cli\n"
    )
    (project / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    for name in (REPORT, UNBUILT):
        (project / "models" / f"{name}.sql").write_text("select 'a' as cell, 7 as people\n")
    (project / "macros" / "cli_test_write.sql").write_text(
        "{% macro cli_test_write(relation) %}{% do kanon._cli_read_only() %}"
        "{% do run_query('create table ' ~ relation ~ ' (a integer)') %}"
        "{% do kanon._cli_emit('written') %}{% endmacro %}\n"
    )
    deps = DbtRunner(project, env={**os.environ, "DBT_PROFILES_DIR": str(ROOT)},
                     target_path=project / "target", log_path=project / "logs").run("deps")
    assert deps.ok, deps.output
    return project


def assert_one_line_error(proc: subprocess.CompletedProcess[str], prefix: str, *fragments: str) -> str:
    """A non-zero exit whose stderr is exactly one line, `prefix...`, holding every fragment."""
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output
    assert proc.returncode not in (0, None), output
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(prefix), output
    for fragment in fragments:
        assert fragment in lines[0], output
    return lines[0]


def assert_usage_error(proc: subprocess.CompletedProcess[str], argument: str, message: str) -> None:
    """argparse's refusal: exit 2, usage, then `error: argument <argument>: <message>`."""
    output = proc.stdout + proc.stderr
    assert "Traceback" not in output, output
    assert proc.returncode == 2, output
    last = proc.stderr.strip().splitlines()[-1]
    assert f"error: argument {argument}: {message}" in last, output


def duckdb_files(wh: Warehouse) -> list[Path]:
    return [p for p in (wh.duckdb_path, Path(f"{wh.duckdb_path}.wal")) if p.exists()]


# --- counts: argparse refuses them before anything is opened ------------------------------------

@pytest.mark.parametrize("value", ["0", "1", "-5", "2.5", "five", "true"])
def test_min_cell_must_be_a_whole_number_of_at_least_2(make_warehouse: Any, value: str) -> None:
    wh = make_warehouse("duckdb", "climin")
    proc = cli(wh, "audit", "--report", REPORT, "--min-cell", value)
    assert_usage_error(proc, "--min-cell", f"must be a whole number >= 2 (like k), got '{value}'")
    assert duckdb_files(wh) == []


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "ten"])
def test_audit_log_last_must_be_a_whole_number_of_at_least_1(make_warehouse: Any, value: str) -> None:
    wh = make_warehouse("duckdb", "clilast")
    proc = cli(wh, "audit-log", "--last", value)
    assert_usage_error(proc, "--last", f"must be a whole number >= 1, got '{value}'")
    assert duckdb_files(wh) == []


@pytest.mark.parametrize("value", ["-0.1", "1.5", "nan", "inf", "five"])
def test_audit_log_jump_must_be_a_share_from_0_to_1(make_warehouse: Any, value: str) -> None:
    wh = make_warehouse("duckdb", "clijump")
    proc = cli(wh, "audit-log", "--jump", value)
    assert_usage_error(proc, "--jump", f"must be a share from 0 to 1 (0.05 for 5 points), got '{value}'")
    assert duckdb_files(wh) == []


# --- a DuckDB file that is not there is refused, not created -------------------------------------

@pytest.mark.parametrize(
    ("command", "args"),
    [("audit", ("--report", REPORT, "--min-cell", "5")), ("audit-log", ())],
)
@pytest.mark.dbt
def test_a_missing_duckdb_file_is_refused_and_not_created(
    make_warehouse: Any, cli_project: Path, command: str, args: tuple[str, ...]
) -> None:
    wh = make_warehouse("duckdb", "clinofile")
    assert duckdb_files(wh) == []
    proc = cli(wh, command, *args, cwd=cli_project)
    assert_one_line_error(proc, f"kanon {command}: ", "no DuckDB database", str(wh.duckdb_path))
    assert duckdb_files(wh) == []


# --- missing project, model, relation, column, audit trail: one line on both warehouses ---------

@pytest.fixture
def published(warehouse_kind: str, make_warehouse: Any, cli_project: Path) -> Warehouse:
    """A warehouse holding one published table, <schema>_cli.cli_report(cell, people), and no audit trail."""
    wh = make_warehouse(warehouse_kind, "cli")
    mart = wh.relation(REPORT, "cli")
    wh.execute(f"create schema if not exists {mart.rsplit('.', 1)[0]}")
    wh.execute(f"create table {mart} (cell varchar(10), people integer)")
    wh.execute(f"insert into {mart} values ('a', 7), ('b', 5)")
    return wh


def audit(wh: Warehouse, project: Path, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """`audit` or `audit-log`, run from inside the project, as an operator would."""
    return cli(wh, *args, cwd=project, process=process)


@pytest.mark.dbt
def test_the_published_table_is_audited(published: Warehouse, cli_project: Path) -> None:
    """The premise of the refusals below: with every name right, the audit runs; and only reads
    (on DuckDB the file is byte for byte what it was). As a user runs it: a process of its own."""
    before = hashlib.sha256(published.duckdb_path.read_bytes()).digest() if published.kind == "duckdb" else b""
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5", process=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 rows, smallest people = 5, 0 row(s) below 5" in proc.stdout
    assert f'"{published.schema}_cli"."{REPORT}": 2 rows' in proc.stdout  # the graph's relation
    too_strict = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "6")
    assert too_strict.returncode == 1 and "1 row(s) below 6" in too_strict.stdout
    assert "FAIL: cli_report publishes 1 cell(s) describing fewer than 6 people" in too_strict.stderr
    if published.kind == "duckdb":
        assert hashlib.sha256(published.duckdb_path.read_bytes()).digest() == before
        assert duckdb_files(published) == [published.duckdb_path]  # no WAL left either


@pytest.mark.dbt
def test_the_scan_counts_what_the_gate_refuses(published: Warehouse, cli_project: Path) -> None:
    """NaN compares above every number (`NaN < 5` is false) and infinity is no count of people:
    the scan counts them below the threshold, by the gate's own condition."""
    mart = published.relation(REPORT, "cli")
    published.execute(f"drop table {mart}")
    published.execute(f"create table {mart} (cell varchar(10), people double precision)")
    published.execute(f"insert into {mart} values ('a', 7), ('b', cast('NaN' as double precision)), "
                      "('c', cast('Infinity' as double precision)), ('d', cast('-Infinity' as double precision))")
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "4 rows" in proc.stdout and "3 row(s) below 5 or NULL, NaN or infinite" in proc.stdout


@pytest.mark.dbt
def test_the_project_can_be_named_from_elsewhere(published: Warehouse, cli_project: Path, tmp_path: Path) -> None:
    proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5", "--project-dir", str(cli_project),
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # dbt's artifacts went to a temporary folder
    not_a_project = cli(published, "audit", "--report", REPORT, "--min-cell", "5", cwd=tmp_path)
    assert_one_line_error(not_a_project, "kanon audit: ", "no dbt project at", "--project-dir")


@pytest.mark.dbt
def test_schema_options_are_gone_the_graph_answers_them(published: Warehouse, cli_project: Path) -> None:
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5", "--schema", "x")
    assert proc.returncode == 2 and "unrecognized arguments: --schema x" in proc.stderr
    proc = audit(published, cli_project, "audit-log", "--audit-schema", "x")
    assert proc.returncode == 2 and "unrecognized arguments: --audit-schema x" in proc.stderr


@pytest.mark.dbt
def test_a_model_that_was_not_built_is_one_line(published: Warehouse, cli_project: Path) -> None:
    proc = audit(published, cli_project, "audit", "--report", UNBUILT, "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", 'cannot read ', f'"{published.schema}_cli"."{UNBUILT}"',
                          "not in the warehouse")


@pytest.mark.dbt
def test_a_missing_model_is_one_line(published: Warehouse, cli_project: Path) -> None:
    proc = audit(published, cli_project, "audit", "--report", "no_such_report", "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", "no model named 'no_such_report'")


@pytest.mark.dbt
def test_a_missing_count_column_is_one_line(published: Warehouse, cli_project: Path) -> None:
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5", "--count-column", "patrons")
    line = assert_one_line_error(proc, "kanon audit: ", "no column 'patrons'", "--count-column")
    assert "cell, people" in line  # the columns there are, so the operator can pick one


@pytest.mark.dbt
def test_a_missing_default_count_column_is_one_line(published: Warehouse, cli_project: Path) -> None:
    """No audit trail and no --count-column: the default 'people' is looked for and reported."""
    published.execute(f"alter table {published.relation(REPORT, 'cli')} rename column people to patrons")
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", "no column 'people'", "--count-column")


@pytest.mark.dbt
def test_a_missing_audit_trail_is_one_line(published: Warehouse, cli_project: Path) -> None:
    proc = audit(published, cli_project, "audit-log")
    assert_one_line_error(proc, "kanon audit-log: ", "kanon_audit_releases", "nothing was released")


# --- the graph, not a search: look-alike schemas are never read ------------------------------------

@pytest.mark.dbt
@pytest.mark.parametrize("impostor", ["wildcard", "longer"])
def test_schemas_that_only_look_like_the_target_are_ignored(
    published: Warehouse, cli_project: Path, impostor: str
) -> None:
    """The relation is the model's own, from the graph: neither `ktxcli_...` (`_` as a wildcard) nor
    `kt_cli_...2` (another target's custom schema) holding a table of the same name is read."""
    schema = published.schema.replace("_", "x", 1) if impostor == "wildcard" else f"{published.schema}2"
    other = f"{schema}_cli"
    published.execute(f'create schema if not exists "{other}"')
    try:
        published.execute(f'create table "{other}"."{REPORT}" (cell varchar(10), people integer)')
        published.execute(f"insert into \"{other}\".\"{REPORT}\" values ('x', 1)")
        proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f'"{published.schema}_cli"."{REPORT}": 2 rows' in proc.stdout
    finally:
        published.execute(f'drop schema if exists "{other}" cascade')


# --- audit-log: the trail's release rows, through kanon.cli_audit_log ------------------------------

def _releases(wh: Warehouse) -> str:
    """An audit trail with four releases of one report, written by hand (the columns audit-log reads)."""
    releases = wh.relation("kanon_audit_releases", "kanon_audit")
    wh.execute(f"create schema if not exists {releases.rsplit('.', 1)[0]}")
    wh.execute(f"create table {releases} (invocation_id varchar(40), released_at timestamp, report varchar(80), "
               "report_unique_id varchar(120), k integer, policy_fingerprint varchar(40), count_column varchar(40), "
               "status varchar(10), reason varchar(200), cells_in bigint, cells_suppressed bigint, "
               "suppression_rate numeric(12, 6))")
    for day, fingerprint, rate, status in (("01", "aaaa", "0.10", "RELEASED"), ("02", "bbbb", "0.30", "RELEASED"),
                                           ("03", "bbbb", "0.31", "RELEASED"), ("04", "bbbb", None, "REFUSED")):
        rate_sql = "null" if rate is None else rate
        cells = "null" if rate is None else f"100, {int(float(rate) * 100)}"
        columns = "released_at, report, report_unique_id, k, policy_fingerprint, count_column, status"
        values = (f"'2026-01-{day} 00:00:00', '{REPORT}', 'model.kanon_cli_test.{REPORT}', 5, '{fingerprint}', "
                  f"'patrons', '{status}'")
        if rate is None:
            wh.execute(f"insert into {releases} ({columns}, reason) values ({values}, 'rows below k')")
        else:
            wh.execute(f"insert into {releases} ({columns}, cells_in, cells_suppressed, suppression_rate) "
                       f"values ({values}, {cells}, {rate_sql})")
    return releases


@pytest.mark.dbt
def test_audit_log_lists_releases_and_flags_jumps(published: Warehouse, cli_project: Path) -> None:
    _releases(published)
    proc = audit(published, cli_project, "audit-log", "--last", "2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    listed = [line for line in lines if line.startswith(REPORT)]
    assert [line.split()[1] for line in listed] == ["2026-01-03", "2026-01-04"]  # the last two, oldest first
    assert "31.0%" in listed[0] and "bbbb" in listed[0] and "(rows below k)" in listed[1]
    # jumps are judged over the whole history, not only the listed releases
    warnings = [line for line in lines if line.startswith("WARNING")]
    assert len(warnings) == 1 and "10.0% -> 30.0%" in warnings[0] and "policy change (aaaa -> bbbb)" in warnings[0]
    failing = audit(published, cli_project, "audit-log", "--fail-on-jump")
    assert failing.returncode == 1 and "WARNING" in failing.stdout


@pytest.mark.dbt
def test_audit_reads_the_count_column_of_the_last_release(published: Warehouse, cli_project: Path) -> None:
    """No --count-column: the trail says the release was checked on `patrons`, which cli_report lacks."""
    _releases(published)
    proc = audit(published, cli_project, "audit", "--report", REPORT, "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", "no column 'patrons'")


@pytest.mark.dbt
def test_the_cli_macros_cannot_write_on_postgres(published: Warehouse, cli_project: Path) -> None:
    if published.kind != "postgres":
        pytest.skip("DuckDB has no read-only session: the macros' own statements are the guarantee there")
    runner = DbtRunner(cli_project, env=published.env(), target_path=cli_project / "target" / "ro",
                       log_path=cli_project / "logs")
    with pytest.raises(DbtError, match="read-only transaction"):
        runner.run_operation("cli_test_write", {"relation": f'"{published.schema}_cli"."written"'})


# --- the dbt runner: what it reads of dbt's output ------------------------------------------------

def test_the_runner_reads_the_last_json_line_and_the_error() -> None:
    output = ("\x1b[0m00:31:47  Running with dbt=1.11.16\nKANON_JSON {\"a\": 1}\n"
              "\x1b[0m00:31:48  KANON_JSON [1, null]\n")
    assert DbtResult(0, output).emitted() == [{"a": 1}, [1, None]]
    compile_error = ("\x1b[0m00:32:11  Encountered an error while running operation: Compilation Error in macro "
                     "boom (macros/m.sql)\n  kanon: no model named 'abc' here\n  \n  > in macro boom\n")
    assert DbtResult(1, compile_error).error() == "kanon: no model named 'abc' here"
    database_error = ("00:31:47  Encountered an error while running operation: Runtime Error\n"
                      "  Catalog Error: Table with name nosuch does not exist!\n  Did you mean \"x\"?\n")
    assert DbtResult(1, database_error).error() == "Catalog Error: Table with name nosuch does not exist!"
    on_its_own_line = "00:31:52  Encountered an error:\nCompilation Error\n  dbt could not find a macro\n"
    assert DbtResult(2, on_its_own_line).error() == "dbt could not find a macro"
    titled = ("00:31:52  Encountered an error:\nRuntime Error\n  Runtime Error in sql_operation inline_query (from "
              "remote system.sql)\n    Catalog Error: Table with name x does not exist!\n")
    assert DbtResult(1, titled).error() == "Catalog Error: Table with name x does not exist!"
    assert DbtResult(2, "Usage: dbt run-operation\n\nError: Invalid value\n").error() == "Error: Invalid value"
    assert DbtResult(2, "").error() == "dbt exited with code 2"


# --- demo -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["0", "-5", "2.5", "many"])
def test_demo_rows_must_be_a_whole_number_of_at_least_1(make_warehouse: Any, value: str) -> None:
    wh = make_warehouse("duckdb", "clirows")
    proc = cli(wh, "demo", "--rows", value)
    assert_usage_error(proc, "--rows", f"must be a whole number >= 1, got '{value}'")
    assert duckdb_files(wh) == []


def test_demo_refuses_a_missing_duckdb_file_and_does_not_create_it(make_warehouse: Any) -> None:
    wh = make_warehouse("duckdb", "clidemo")
    proc = cli(wh, "demo")
    assert_one_line_error(proc, "kanon demo: ", "no DuckDB database", str(wh.duckdb_path))
    assert duckdb_files(wh) == []


@pytest.mark.dbt
def test_demo_without_the_example_release_is_one_line(warehouse_kind: str, make_warehouse: Any) -> None:
    """A warehouse that is there but holds no example release: one line saying what to build."""
    wh = make_warehouse(warehouse_kind, "clidemoempty")
    wh.execute("select 1")  # on DuckDB: an existing, empty database file
    proc = cli(wh, "demo")
    assert_one_line_error(proc, "kanon demo: ", "circulation_by_branch_age_title", "make demo")


# --- bench: argparse refuses bad counts and sizes before anything is generated ----------------------

def run_tool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return kanon_tools_cli(list(args), dict(os.environ), cwd)


def bench(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`bench` writing only under tmp_path, with no sizes unless the test gives some: even the code
    before the argument checks did no work then."""
    return run_tool("bench", "--sizes", "", "--postgres-sizes", "", "--workdir", str(tmp_path / "work"),
                    "--out", str(tmp_path / "BENCH.md"), "--plot", str(tmp_path / "bench.png"), "--quiet", *args)


def assert_bench_did_nothing(tmp_path: Path) -> None:
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "bench wrote something"


@pytest.mark.parametrize("option", ["--repeats", "--postgres-repeats"])
@pytest.mark.parametrize("value", ["0", "-1", "1.5", "twice"])
def test_bench_repeats_must_be_a_whole_number_of_at_least_1(tmp_path: Path, option: str, value: str) -> None:
    proc = bench(tmp_path, option, value)
    assert_usage_error(proc, option, f"must be a whole number >= 1, got '{value}'")
    assert_bench_did_nothing(tmp_path)


@pytest.mark.parametrize(
    ("option", "value", "bad"),
    [("--sizes", "0", "0"), ("--sizes", "22", "22"), ("--sizes", "2.5", "2.5"), ("--sizes", "1e999", "1e999"),
     ("--sizes", "20k,abc", "abc"), ("--postgres-sizes", "ten", "ten"),
     ("--postgres-sizes", "1M,x", "x")],
)
def test_bench_sizes_must_be_counts_of_at_least_the_planted_loans(
    tmp_path: Path, option: str, value: str, bad: str
) -> None:
    proc = bench(tmp_path, option, value)
    assert_usage_error(proc, option, f"must be comma-separated event counts >= 23 (the generator's planted loans), "
                                     f"like 200k,1M, or '' for none; {bad!r} is not, in {value!r}")
    assert_bench_did_nothing(tmp_path)


def test_bench_with_no_sizes_is_refused_before_it_overwrites_the_report(tmp_path: Path) -> None:
    proc = bench(tmp_path)
    assert_one_line_error(proc, "kanon bench: ", "nothing to run", "--sizes", "--postgres-sizes", "--big")
    assert proc.returncode == 2
    assert_bench_did_nothing(tmp_path)


# --- generate: every number has a range, enforced by argparse --------------------------------------

def generate(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_tool("generate", "--quiet", "--out-csv", str(tmp_path / "events.csv"), *args)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--year", "1899", "must be a whole number from 1900 to 2999"),
        ("--year", "3000", "must be a whole number from 1900 to 2999"),
        ("--year", "9999", "must be a whole number from 1900 to 2999"),
        ("--year", "twenty", "must be a whole number from 1900 to 2999"),
        ("--seed", "-1", "must be a whole number >= 0"),
        ("--seed", "1.5", "must be a whole number >= 0"),
        ("--events", "0", "must be a count >= 1"),
        ("--events", "-5", "must be a count >= 1"),
        ("--events", "1e999", "must be a count >= 1"),
        ("--events", "nan", "must be a count >= 1"),
        ("--patrons", "18", "must be a count >= 19 (the planted thin cells' patrons)"),
        ("--titles", "317", "must be a count >= 318 (the built-in catalog)"),
    ],
)
def test_generate_numbers_outside_their_range_are_usage_errors(
    tmp_path: Path, option: str, value: str, message: str
) -> None:
    proc = generate(tmp_path, option, value)
    assert_usage_error(proc, option, message)
    assert f"got '{value}'" in proc.stderr
    assert not (tmp_path / "events.csv").exists()


@pytest.mark.parametrize(("text", "value"), [("1.005M", 1_005_000), ("2.01k", 2_010)])
def test_decimal_counts_are_exact(text: str, value: int) -> None:
    """1.005M is 1,005,000: not refused because 1.005 * 1e6 is 1004999.9999999999 in binary floating point."""
    from kanon_tools.cli import generate as generate_cli

    assert generate_cli.events_count(text) == value
