"""The audit CLI refuses bad input in one line: no traceback, no file created, a non-zero exit.

`python -m kanon_tools audit` and `audit-log` run as subprocesses with a conftest Warehouse's
environment (KANON_DUCKDB_PATH, KANON_SCHEMA), as an operator would run them. Nothing here
drives dbt: the tables they read are created directly.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, Warehouse

PYTHON = str(ROOT / ".venv/bin/python")
REPORT = "cli_report"


def cli(wh: Warehouse, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PYTHON, "-m", "kanon_tools", *args, "--target", wh.kind],
        env={**os.environ, **wh.env()}, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )


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
def test_a_missing_duckdb_file_is_refused_and_not_created(
    make_warehouse: Any, command: str, args: tuple[str, ...]
) -> None:
    wh = make_warehouse("duckdb", "clinofile")
    assert duckdb_files(wh) == []
    proc = cli(wh, command, *args)
    assert_one_line_error(proc, f"kanon {command}: ", "no DuckDB database", str(wh.duckdb_path))
    assert duckdb_files(wh) == []


# --- missing schema, table, column, audit trail: one line on both warehouses ---------------------

@pytest.fixture
def published(warehouse_kind: str, make_warehouse: Any) -> Warehouse:
    """A warehouse holding one published table, <schema>_cli.cli_report(cell, people), and no audit trail."""
    wh = make_warehouse(warehouse_kind, "cli")
    mart = wh.relation(REPORT, "cli")
    wh.execute(f"create schema if not exists {mart.rsplit('.', 1)[0]}")
    wh.execute(f"create table {mart} (cell varchar(10), people integer)")
    wh.execute(f"insert into {mart} values ('a', 7), ('b', 5)")
    return wh


def test_the_published_table_is_audited(published: Warehouse) -> None:
    """The premise of the refusals below: with every name right, the audit runs."""
    proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 rows, smallest people = 5, 0 row(s) below 5" in proc.stdout


def test_a_missing_schema_is_one_line(published: Warehouse) -> None:
    schema = f"{published.schema}_nosuch"
    proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5", "--schema", schema)
    assert_one_line_error(proc, "kanon audit: ", f'cannot read "{schema}"."{REPORT}"')


def test_a_missing_table_is_one_line(published: Warehouse) -> None:
    proc = cli(published, "audit", "--report", "no_such_report", "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", "no_such_report", "found in schemas: none")


def test_a_missing_count_column_is_one_line(published: Warehouse) -> None:
    proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5", "--count-column", "patrons")
    line = assert_one_line_error(proc, "kanon audit: ", "no column 'patrons'", "--count-column")
    assert "cell, people" in line  # the columns there are, so the operator can pick one


def test_a_missing_default_count_column_is_one_line(published: Warehouse) -> None:
    """No audit trail and no --count-column: the default 'people' is looked for and reported."""
    published.execute(f"alter table {published.relation(REPORT, 'cli')} rename column people to patrons")
    proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5")
    assert_one_line_error(proc, "kanon audit: ", "no column 'people'", "--count-column")


def test_a_missing_audit_trail_is_one_line(published: Warehouse) -> None:
    proc = cli(published, "audit-log")
    assert_one_line_error(proc, "kanon audit-log: ", "kanon_audit_releases")


# --- find_mart: the target schema's name is matched literally, not as a LIKE pattern ---------------

@pytest.mark.parametrize("impostor", ["wildcard", "longer"])
def test_find_mart_ignores_schemas_that_only_look_like_the_target(published: Warehouse, impostor: str) -> None:
    """`_` in the target schema is no wildcard, and `<schema>2` is another target, not a custom schema:
    neither `ktxcli_...` nor `kt_cli_...2` may be taken for `<schema>_<custom>`."""
    schema = published.schema.replace("_", "x", 1) if impostor == "wildcard" else f"{published.schema}2"
    other = f"{schema}_cli"
    published.execute(f'create schema if not exists "{other}"')
    try:
        published.execute(f'create table "{other}"."{REPORT}" (cell varchar(10), people integer)')
        published.execute(f"insert into \"{other}\".\"{REPORT}\" values ('x', 1)")
        proc = cli(published, "audit", "--report", REPORT, "--min-cell", "5")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f'"{published.schema}_cli"."{REPORT}": 2 rows' in proc.stdout
    finally:
        published.execute(f'drop schema if exists "{other}" cascade')


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


def test_demo_without_the_example_release_is_one_line(warehouse_kind: str, make_warehouse: Any) -> None:
    """A warehouse that is there but holds no example release: one line saying what to build."""
    wh = make_warehouse(warehouse_kind, "clidemoempty")
    wh.execute("select 1")  # on DuckDB: an existing, empty database file
    proc = cli(wh, "demo")
    assert_one_line_error(proc, "kanon demo: ", "circulation_by_branch_age_title", "make demo")


# --- bench: argparse refuses bad counts and sizes before anything is generated ----------------------

def run_tool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, "-m", "kanon_tools", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


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
    from kanon_tools import generate as gen

    assert gen._count(text) == value
