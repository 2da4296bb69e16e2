"""The suite's shared pytest machinery: the `dbt` tier enforced, the order the test files start
in (SECONDS_PER_FILE), and the fixtures every folder uses: `warehouse_kind` (every
dbt-level test runs on DuckDB and Postgres) and `make_warehouse`. The classes and helpers tests
share are in support/ (tests/ is on sys.path: pytest.ini's pythonpath); a folder's own fixtures
go in its own conftest.py.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dbt_common.tests import enable_test_caching
from kanon_tools.noise import DEMO_KEY
from kanon_tools.pseudonym_env import NOISE_KEY_ENV
from support import ROOT as ROOT  # re-exported: repo/test_lint_macros.py imports it from here
from support.projects import TEST_RUN
from support.warehouses import WAREHOUSES, Warehouse, require_postgres

# dbt's parse caches, on as dbt's own test fixtures turn them on (dbt.tests.fixtures.project,
# `initialization`): a Jinja parse is kept by its source text, so a worker parses kanon's and
# dbt's macros once rather than in every full parse of a project (a module's new schema is a new
# profile, so a full parse). tests/audit/test_audit.py alone: 123 s -> 102 s. Nothing rendered is kept.
enable_test_caching()

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


@pytest.fixture(scope="session", params=WAREHOUSES)
def warehouse_kind(request: pytest.FixtureRequest) -> str:
    kind = str(request.param)
    if kind == "postgres":
        require_postgres()
    return kind


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
