"""The suite's shared pytest machinery: the `dbt` tier enforced, the order the test files start
in (support/file_seconds.py), and the fixtures every folder uses: `warehouse_kind` (every
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
from support.file_seconds import in_start_order, read_seconds, register_recorder
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


def pytest_configure(config: pytest.Config) -> None:
    register_recorder(config)  # KANON_RECORD_FILE_SECONDS=1 (make test-seconds): this run's seconds per file


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
    """The files longest first, by the seconds the suite measured (support/file_seconds.json)."""
    in_start_order(items, read_seconds())


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
