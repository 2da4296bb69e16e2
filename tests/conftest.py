"""Shared pytest machinery: drive dbt against DuckDB and Postgres, and query what it built.

Every dbt-level test runs on both warehouses through the `warehouse_kind` fixture. Postgres is
reached through the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE). When it
cannot be reached, the Postgres half fails under CI=true and is skipped, with one clear reason,
anywhere else.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from dbt_common.tests import enable_test_caching

# DBT and DbtResult are re-exported: test modules import them from here
from kanon_tools.dbt_runner import DBT as DBT
from kanon_tools.dbt_runner import DbtResult as DbtResult
from kanon_tools.dbt_runner import DbtRunner, swapped_environment
from kanon_tools.noise import DEMO_KEY
from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, NOISE_KEY_ENV, pseudonym_env
from kanon_tools.warehouse import Target, postgres_params

# dbt's parse caches, on as dbt's own test fixtures turn them on (dbt.tests.fixtures.project,
# `initialization`): a Jinja parse is kept by its source text, so a worker parses kanon's and
# dbt's macros once rather than in every full parse of a project (a module's new schema is a new
# profile, so a full parse). tests/test_audit.py alone: 123 s -> 102 s. Nothing rendered is kept.
enable_test_caching()

ROOT = Path(__file__).resolve().parents[1]
INTEGRATION = ROOT / "integration_tests"
IN_CI = os.environ.get("CI", "").lower() == "true"
WAREHOUSES = ("duckdb", "postgres")
# One id for the whole test run, shared by pytest-xdist's workers (they inherit the environment of
# the process that imported this first): packages are installed once per project and run.
TEST_RUN = os.environ.setdefault("KANON_TEST_RUN", uuid.uuid4().hex)
# What kanon's commands cache (dbt's parsed projects, kanon_tools.dbt_runner.cache_dir): the run's
# own, shared by its workers, never the user's ~/.cache
os.environ.setdefault("KANON_CACHE_DIR", str(Path(tempfile.gettempdir()) / f"kanon-test-cache-{TEST_RUN}"))
# the example's noisy twin needs its (public) key wherever the suite builds the kanon project, as
# `make` exports it; the noise tests set keys of their own (KeyedProject)
os.environ.setdefault(NOISE_KEY_ENV, DEMO_KEY)


# The order files start in under `make test` (--dist loadfile --no-loadscope-reorder): longest
# first, so that the two workers finish together (each takes the next file as it starts its last
# one). Seconds each file took in a whole run on the 2-core machine (2026-12-05, fifth session,
# with the Spark driver's JVM options of kanon_tools.spark_sql; test_release_over_time.py less
# its 22 s of parses, alone 57 s -> 35 s); a file not listed takes under 10 s. xdist's default
# order, files with the most tests first, started the Spark module last, and then, in test count
# order, left one worker 70 s behind the other. test_dbt_versions.py: alone (pytest -n 1), its
# virtualenv cached.
SECONDS_PER_FILE = {
    "test_spark.py": 340, "test_table.py": 233, "test_audit.py": 101, "test_bench.py": 99,
    "test_release_hardening.py": 81, "test_dbt_versions.py": 70, "test_records.py": 59, "test_records_adult.py": 57,
    "test_release.py": 42, "test_cli.py": 40, "test_records_inspect.py": 38, "test_records_cli.py": 22,
    "test_dbt_runner.py": 33, "test_release_over_time.py": 33, "test_release_guards.py": 32,
    "test_host_settings.py": 30, "test_records_pseudonym.py": 28, "test_records_receipt.py": 27,
    "test_release_property.py": 26, "test_records_cli_checks.py": 24, "test_hierarchy_tests.py": 21,
    "test_privacy_unit.py": 20, "test_records_reference.py": 19, "test_example.py": 15,
    "test_install.py": 16, "test_audit_cell_fates.py": 14, "test_records_cli_findings.py": 12, "test_report.py": 20,
    "test_previews.py": 45, "test_host_clone.py": 50, "test_noise_counts.py": 80, "test_ptable_tests.py": 35,
}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """The `dbt` tier, enforced: a test without the marker (or its fixtures) that starts dbt, in
    this process or in a command it runs, fails (kanon_tools.dbt_runner refuses while KANON_NO_DBT
    is set), so `make check` (-m "not dbt") never waits on a warehouse."""
    if item.get_closest_marker("dbt") is None:
        os.environ["KANON_NO_DBT"] = item.nodeid
    else:
        os.environ.pop("KANON_NO_DBT", None)


@pytest.hookimpl(trylast=True)  # after pytest's own reordering, which keeps a file's fixtures together
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files by SECONDS_PER_FILE, longest first, then the others by their number of tests,
    most first (xdist's own order); a file's tests together, in their order (the sort is stable)."""
    per_file: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for at, item in enumerate(items):
        per_file[item.path.name] = per_file.get(item.path.name, 0) + 1
        first_seen.setdefault(item.path.name, at)
    items.sort(key=lambda item: (-SECONDS_PER_FILE.get(item.path.name, 0), -per_file[item.path.name],
                                 first_seen[item.path.name]))


def postgres_unavailable_reason() -> str | None:
    """None when Postgres answers, else a one-line reason."""
    try:
        import psycopg2

        psycopg2.connect(connect_timeout=3, **postgres_params()).close()
        return None
    except Exception as exc:  # any failure to connect means "not available"
        params = postgres_params()
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"Postgres not reachable at {params['host']}:{params['port']} ({first_line})"


@dataclass
class Warehouse:
    """One isolated place to build into: a DuckDB file, or a Postgres schema prefix."""

    kind: str
    schema: str
    workdir: Path
    duckdb_path: Path = field(init=False)

    def __post_init__(self) -> None:
        # The file name must differ from the schema name: DuckDB cannot bind a view whose catalog
        # (the file stem) and schema share a name ("Ambiguous reference to catalog").
        self.duckdb_path = self.workdir / f"wh_{self.schema}.duckdb"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DBT_PROFILES_DIR=str(ROOT),
            KANON_TARGET=self.kind,
            KANON_SCHEMA=self.schema,
            KANON_DUCKDB_PATH=str(self.duckdb_path),
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        )
        # Postgres reads the noise key (the example's noisy twin) from a setting PGOPTIONS gives
        return pseudonym_env(env, NOISE_KEY_ENV) if self.kind == "postgres" else env

    def connect(self) -> Any:
        if self.kind == "duckdb":
            import duckdb

            return duckdb.connect(str(self.duckdb_path))
        import psycopg2

        conn = psycopg2.connect(**postgres_params())
        conn.autocommit = True
        return conn

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            return [tuple(row) for row in cur.fetchall()]
        finally:
            conn.close()

    def execute(self, sql: str) -> None:
        conn = self.connect()
        try:
            conn.cursor().execute(sql)
            if self.kind == "duckdb":
                conn.commit()
        finally:
            conn.close()

    def relation(self, name: str, schema_suffix: str | None = None) -> str:
        return Target(self.kind, self.schema).relation(name, schema_suffix)

    def comment(self, name: str) -> str | None:
        """The comment on a model's relation (what kanon notes there for readers of a noisy mart)."""
        if self.kind == "duckdb":
            rows = self.query(f"select comment from duckdb_tables() where schema_name = {_pg_literal(self.schema)} "
                              f"and table_name = {_pg_literal(name)}")
        else:
            rows = self.query(f"select obj_description(to_regclass({_pg_literal(self.relation(name))}), 'pg_class')")
        return rows[0][0] if rows else None

    def drop_everything(self) -> None:
        if self.kind == "duckdb":
            self.duckdb_path.unlink(missing_ok=True)
            Path(f"{self.duckdb_path}.wal").unlink(missing_ok=True)
            return
        rows = self.query(
            f"select nspname from pg_namespace where nspname = {_pg_literal(self.schema)} "
            f"or nspname like {_pg_literal(self.schema + chr(92) + '_%')}"
        )
        for (name,) in rows:
            self.execute(f'drop schema if exists "{name}" cascade')


def _pg_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DbtProject:
    """A dbt project driven through the CLI with its own target and log folders."""

    def __init__(self, project_dir: Path, warehouse: Warehouse, *, artifacts: bool = False) -> None:
        self.project_dir = project_dir
        self.warehouse = warehouse
        self.artifacts = artifacts  # manifest.json too (DbtRunner's artifacts)
        self.state_dir = warehouse.workdir / f"{project_dir.name}-{warehouse.kind}"
        self.state_dir.mkdir(parents=True, exist_ok=True)

    def runner(self) -> DbtRunner:
        # made per invocation: the warehouse's environment is read when dbt runs, as before
        return DbtRunner(self.project_dir, env=self.warehouse.env(), target_path=self.state_dir / "target",
                         log_path=self.state_dir / "logs", artifacts=self.artifacts)

    def run(self, *args: str, expect_ok: bool | None = True) -> DbtResult:
        if args[:1] == ("deps",):
            return install_packages(self.project_dir, lambda: self.runner().run(*args))
        result = self.runner().run(*args)
        if expect_ok is True and not result.ok:
            raise AssertionError(f"dbt {' '.join(args)} failed:\n{result.output[-6000:]}")
        if expect_ok is False and result.ok:
            raise AssertionError(f"dbt {' '.join(args)} unexpectedly succeeded:\n{result.output[-3000:]}")
        return result

    def compiled_test_sql(self, test_name: str) -> str:
        """The SQL dbt compiled for a (uniquely named) data test in the last invocation."""
        found = list((self.state_dir / "target" / "compiled").rglob(f"{test_name}.sql"))
        assert len(found) == 1, f"compiled SQL for {test_name}: {found}"
        return found[0].read_text()


@pytest.fixture(scope="session", params=WAREHOUSES)
def warehouse_kind(request: pytest.FixtureRequest) -> str:
    kind = str(request.param)
    if kind == "postgres":
        require_postgres()
    return kind


@contextlib.contextmanager
def postgres_role(wh: Warehouse, name: str) -> Iterator[str]:
    """A Postgres role <schema>_<name> made for a test, and everything it owns dropped after."""
    role = f"{wh.schema}_{name}"
    wh.execute(f'drop role if exists "{role}"')
    wh.execute(f'create role "{role}"')
    try:
        yield role
    finally:
        wh.execute(f'drop owned by "{role}"')
        wh.execute(f'drop role if exists "{role}"')


def role_can_select(wh: Warehouse, role: str, relation: str) -> bool:
    """Whether `role` may select from `relation` (Postgres): False on a permission denied, on the
    table or on its schema; any other error is raised."""
    import psycopg2

    conn = wh.connect()
    try:
        cur = conn.cursor()
        cur.execute(f'set role "{role}"')
        try:
            cur.execute(f"select count(*) from {relation}")
        except psycopg2.errors.InsufficientPrivilege:
            return False
        return True
    finally:
        conn.close()


def mart(wh: Warehouse, name: str) -> list[tuple[Any, ...]]:
    """Every row of a model's relation, in a fixed order (by repr: rows may mix types and NULLs)."""
    return sorted((tuple(row) for row in wh.query(f"select * from {wh.relation(name)}")), key=repr)


def require_postgres() -> None:
    """For tests that only make sense on Postgres (roles, grants): fail under CI, else skip, when it is down."""
    reason = postgres_unavailable_reason()
    if reason:
        if IN_CI:
            pytest.fail(f"{reason}; CI requires the Postgres half of the suite", pytrace=False)
        pytest.skip(f"{reason}: skipping the Postgres half of the suite")


@pytest.fixture(scope="session")
def session_workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kanon")


@pytest.fixture(scope="session")
def make_warehouse(session_workdir: Path) -> Iterator[Any]:
    """Factory: a fresh, isolated warehouse of a kind; dropped at the end of the session."""
    made: list[Warehouse] = []

    def _make(kind: str, tag: str) -> Warehouse:
        schema = f"kt_{tag}_{uuid.uuid4().hex[:8]}"
        wh = Warehouse(kind=kind, schema=schema, workdir=session_workdir)
        made.append(wh)
        return wh

    yield _make
    for wh in made:
        with contextlib.suppress(Exception):  # cleanup must not mask the real test outcome
            wh.drop_everything()


def install_packages(project_dir: Path, deps: Any) -> DbtResult:
    """`dbt deps` for a project, once per test run. Tests run in parallel (pytest-xdist) and share
    integration_tests/: a second `dbt deps` there would replace dbt_packages/ under a dbt build
    that is reading it. So the first caller installs, under a lock, and the others find it done.
    `deps` runs dbt deps and returns its DbtResult; a failed one raises."""
    installed = project_dir / "dbt_packages" / ".kanon-test-run"
    digest = hashlib.md5(str(project_dir.resolve()).encode()).hexdigest()[:12]
    with open(Path(tempfile.gettempdir()) / f"kanon-deps-{digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed.exists() and installed.read_text() == TEST_RUN:
            return DbtResult(returncode=0, output=f"packages of {project_dir} already installed in this test run")
        result: DbtResult = deps()
        if not result.ok:
            raise AssertionError(f"dbt deps failed in {project_dir}:\n{result.output[-4000:]}")
        installed.write_text(TEST_RUN)
        return result


def kanon_tools_cli(argv: list[str], env: dict[str, str], cwd: Path, *, process: bool = False,
                    timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m kanon_tools <argv>` with `env` in `cwd`: its exit code, stdout and stderr.

    process=True runs it as a user does, a Python process of its own (a few tests per command
    keep that). Otherwise its main() runs here (`main_in_process`): seconds of start-up saved on
    every call."""
    program = [sys.executable, "-m", "kanon_tools"]
    if process:
        return subprocess.run([*program, *argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    from kanon_tools.__main__ import main

    return main_in_process(main, program, argv, env, cwd)


def main_in_process(main: Callable[[list[str]], int], program: list[str], argv: list[str], env: dict[str, str],
                    cwd: Path) -> subprocess.CompletedProcess[str]:
    """`program`'s main() run here on `argv` (its arguments, without the program), with `env` and
    `cwd`, as its process would run it: argparse's exits and an uncaught exception's traceback
    included, and the dbt invocations it makes (kanon_tools.dbt_runner). Returns what
    subprocess.run would: the exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with swapped_environment(env), contextlib.chdir(cwd), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as stop:  # argparse, and commands that exit
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if isinstance(stop.code, str):
                err.write(stop.code + "\n")
        except Exception:  # as Python's own handler would: the traceback on stderr, exit 1
            traceback.print_exc(file=err)
            code = 1
    return subprocess.CompletedProcess([*program, *argv], code, out.getvalue(), err.getvalue())


def write_csv(path: Path, rows: list[dict[str, str | None]]) -> None:
    """A seed of rows with the same keys, its header their keys (None written as an empty value)."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def copy_project(src: Path, dest: Path) -> Path:
    """A writable copy of a dbt project, for tests that change files between runs."""
    shutil.copytree(src, dest, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages"))
    return dest


def assert_bad_inputs_refused(project: DbtProject, wh: Warehouse, folder: str, prefix: str,
                              expected: dict[str, str], project_name: str = "model.kanon_integration_tests") -> None:
    """Runs the fixtures of `folder` (models enabled by the var kanon_bad_inputs): each must fail to
    compile with its expected message, and none may leave a table behind."""
    result = project.run("run", "--select", f"path:{folder}", "--vars", "{kanon_bad_inputs: true}", expect_ok=False)
    for model, message in expected.items():
        node = result.results[f"{project_name}.{model}"]
        assert node["status"] == "error", model
        assert message in node["message"], (model, node["message"])
    assert wh.query(f"select count(*) from information_schema.tables where table_name like '{prefix}%' "
                    f"and table_schema = '{wh.schema}'") == [(0,)]


class KeyedProject(DbtProject):
    """A DbtProject whose dbt runs with chosen keys (or none) in named variables, PGOPTIONS built from them.

    Every key variable the shell holds (the pseudonym and noise keys, those named here) is removed
    first: only the keys given here count."""

    def __init__(self, project_dir: Path, warehouse: Warehouse, keys: Mapping[str, str | None]) -> None:
        super().__init__(project_dir, warehouse)
        self.keys = dict(keys)

    def env(self) -> dict[str, str]:
        env = self.warehouse.env()
        for name in (DEFAULT_KEY_ENV, NOISE_KEY_ENV, *self.keys, "PGOPTIONS"):
            env.pop(name, None)
        for name, value in self.keys.items():
            if value is not None:
                env[name] = value
        for name in self.keys:
            env = pseudonym_env(env, name)
        return env

    def runner(self) -> DbtRunner:
        # every artifact a user's dbt writes (manifest.json included): the key must be in none
        return DbtRunner(self.project_dir, env=self.env(), target_path=self.state_dir / "target",
                         log_path=self.state_dir / "logs", artifacts=True)

    def with_keys(self, keys: Mapping[str, str | None]) -> KeyedProject:
        return KeyedProject(self.project_dir, self.warehouse, keys)

    def places(self) -> list[Path]:
        """Where a dbt run writes: the project, its target/ and logs/, and the DuckDB file."""
        wh = self.warehouse
        return [self.project_dir, self.state_dir, wh.duckdb_path, Path(f"{wh.duckdb_path}.wal")]


def built_keyed_host(path: Path, write_host: Callable[[Path], None], warehouse: Warehouse,
                     keys: Mapping[str, str | None]) -> KeyedProject:
    """A host project written at `path` by `write_host`, installing kanon, built once with the keys."""
    write_host(path)
    project = KeyedProject(path, warehouse, keys)
    project.run("deps")
    project.run("build")
    return project
