"""dbt driven in a project (DbtProject; KeyedProject, with chosen keys), its packages installed
once per test run, and the files tests write into projects."""

from __future__ import annotations

import csv
import fcntl
import hashlib
import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kanon_tools.dbt_runner import DbtResult, DbtRunner
from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, NOISE_KEY_ENV, pseudonym_env

from support.warehouses import Warehouse

# One id for the whole test run, shared by pytest-xdist's workers (they inherit the environment of
# the process that imported this first, the controller through tests/conftest.py): packages are
# installed once per project and run.
TEST_RUN = os.environ.setdefault("KANON_TEST_RUN", uuid.uuid4().hex)


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
