"""The dbt versions kanon supports other than the suite's own: a smoke set on each.

The suite runs on the dbt of requirements.txt (1.11). For every other supported version,
tests/host/matrix/constraints-<version>.txt pins dbt-core and its adapters; this module builds a
virtualenv from it (cached between runs in ~/.cache/kanon/dbt-matrix/<version>-<hash>, or under
KANON_MATRIX_CACHE) and runs that version's dbt as a process, on DuckDB and Postgres: the demo's
build (seeds, example mart, tests), one release of each kind published and one refused (the
integration project's), and the audit trail across a host project's `+materialized: table` and
`+schema` defaults. Under CI=true a virtualenv that cannot be built fails the test; elsewhere (a
laptop without the registry) it is skipped, with the reason.

Why dbt 1.8 and 1.9 are not here (docs/reference/warehouses.md, "dbt-core"): kanon's YAML
passes generic tests their inputs under `arguments:`, which dbt reads from 1.10.8 on. Alone
(pytest -n 1), the module took 70 s on the 2-core machine, the virtualenv cached: per warehouse,
the demo 8 s, the releases 16-17 s, the host 7 s, and 5 s of `dbt deps` once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from support import IN_CI, INTEGRATION, ROOT
from support.host_projects import BOTH_RELEASED, TABLE_OVERRIDE, Host, assert_trail_is_kanons, write_host
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

MATRIX = Path(__file__).parent / "matrix"
VERSIONS = sorted((p.stem.removeprefix("constraints-") for p in MATRIX.glob("constraints-*.txt")),
                  key=lambda v: tuple(map(int, v.split("."))))
CACHE = Path(os.environ.get("KANON_MATRIX_CACHE", Path.home() / ".cache" / "kanon" / "dbt-matrix"))
KEY = "6d61747269782d6f6e6c792d6b65792d6e6f742d612d7365637265742d6b616e6f6e"  # guards nothing

# The integration project's releases, by kind: published as they are, then refused with the vars
# below (the counts kind is published by the demo and the host project).
PUBLISHED = {"records_refusable": "records", "table_worked": "table", "release_gate": "hand_written"}
REFUSED = {"records_refusable": "records", "table_tampered_below_k": "table", "release_gate": "hand_written",
           "hardening_null_unit_error": "counts"}
SEEDS = ("records_people", "records_hierarchy_postal", "table_activity", "release_events", "hardening_events")
REFUSING_VARS = ("{records_k: 100, table_refusals: true, release_gate_min_people: 1, "
                 "kanon_hardening_refusals: true}")


class VenvUnavailable(Exception):
    """The version's virtualenv could not be built (no registry, or a pin it does not serve)."""


def build_venv(version: str) -> Path:
    """The virtualenv of tests/host/matrix/constraints-<version>.txt, built once and reused while its
    pins and this Python are the same: its folder is named by their hash, and holds a marker
    written last (a build cut short is rebuilt). A lock keeps two test processes from building
    it at once."""
    constraints = MATRIX / f"constraints-{version}.txt"
    digest = hashlib.sha256(constraints.read_bytes() + f"{sys.version}|{os.path.realpath(sys.executable)}".encode())
    venv = CACHE / f"{version}-{digest.hexdigest()[:12]}"
    python, marker = venv / "bin" / "python", venv / ".kanon-complete"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() and (venv / "bin" / "dbt").exists() and \
                subprocess.run([python, "-c", "import dbt.version"], capture_output=True).returncode == 0:
            return venv
        shutil.rmtree(venv, ignore_errors=True)
        uv = Path(sys.executable).parent / "uv"
        steps: list[list[str | Path]] = (
            [[uv, "venv", "--quiet", "--python", sys.executable, venv],
             [uv, "pip", "install", "--quiet", "--python", python, "-r", constraints]] if uv.exists() else
            [[sys.executable, "-m", "venv", venv],
             [python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", constraints]])
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, timeout=600)
            if done.returncode != 0:
                shutil.rmtree(venv, ignore_errors=True)
                raise VenvUnavailable(f"cannot build the dbt {version} virtualenv ({' '.join(map(str, step[:3]))} "
                                      f"exited {done.returncode}): {(done.stderr or done.stdout).strip()[-1500:]}")
        marker.write_text(digest.hexdigest())
        return venv


@pytest.fixture(scope="module", params=VERSIONS)
def dbt_version(request: pytest.FixtureRequest) -> tuple[str, Path]:
    """(version, virtualenv); the test fails under CI=true when it cannot be built, else skips."""
    version = str(request.param)
    try:
        return version, build_venv(version)
    except (VenvUnavailable, subprocess.TimeoutExpired) as exc:
        if IN_CI:
            pytest.fail(f"{exc}; CI requires every dbt version of tests/host/matrix", pytrace=False)
        pytest.skip(f"{exc}: skipping dbt {version}")


def dbt(venv: Path, project: Path, wh: Warehouse, run: str, *args: str) -> DbtResult:
    """`dbt <args>` of the virtualenv, as a process, in `project` on the warehouse; its state
    (target and log paths) under the warehouse's folder, by `run`. run_results.json is read."""
    state = wh.workdir / f"{wh.schema}-{run}"
    env = {**wh.env(), "PYTHONPATH": str(ROOT / "python_helpers"), "KANON_PSEUDONYM_KEY": KEY}
    for name in ("VIRTUAL_ENV", "DBT_TARGET_PATH", "DBT_LOG_PATH"):
        env.pop(name, None)
    flags = [] if args[0] == "deps" else ["--target-path", str(state / "target"), "--log-path", str(state / "logs")]
    done = subprocess.run([venv / "bin" / "dbt", *args, *flags], cwd=project, env=env, capture_output=True,
                          text=True, timeout=600)
    results_file = state / "target" / "run_results.json"
    results: dict[str, dict[str, Any]] = {}
    invocation_id = None
    if results_file.exists():
        data = json.loads(results_file.read_text())
        results = {str(item["unique_id"]).split(".")[2]: item for item in data["results"]}
        invocation_id = data["metadata"]["invocation_id"]
    return DbtResult(done.returncode, done.stdout + done.stderr, results, invocation_id)


def released(wh: Warehouse, invocation_id: str | None) -> dict[str, tuple[str, str]]:
    """report -> (release_kind, status) of the trail's rows for one invocation."""
    rows = wh.query(f'select report, release_kind, status from "{wh.schema}_kanon_audit"."kanon_audit_releases" '
                    f"where invocation_id = '{invocation_id}'")
    return {str(r): (str(k), str(s)) for r, k, s in rows}


def version_of(result: DbtResult) -> str:
    return next((line.strip() for line in result.output.splitlines() if "Running with dbt=" in line), "")


def slim_copy(dest: Path) -> Path:
    """integration_tests/ with only the models and seeds below (and its macros and YAML: the
    data tests of the nodes left out are not made), installing kanon from this checkout. Each
    invocation parses it in about 6 s on 1.10 rather than 7."""
    keep = {f"{name}.sql" for name in (*PUBLISHED, *REFUSED)} | {f"{name}.csv" for name in SEEDS}

    def ignore(folder: str, names: list[str]) -> list[str]:
        in_macros = Path(folder).relative_to(INTEGRATION).parts[:1] == ("macros",)
        return [name for name in names if name in ("target", "logs", "dbt_packages")
                or (Path(name).suffix in (".sql", ".csv") and name not in keep and not in_macros)]

    shutil.copytree(INTEGRATION, dest, ignore=ignore)
    (dest / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    return dest


@pytest.fixture(scope="module")
def projects(dbt_version: tuple[str, Path], tmp_path_factory: pytest.TempPathFactory,
             make_warehouse: Any) -> dict[str, Path]:
    """The version's integration project (slim_copy) and host project (test_host_settings.write_host,
    with `+materialized: table`, the override for kanon's audit models its error asks for, and
    `+schema: marts`), their packages installed once by the version's dbt for both warehouses."""
    version, venv = dbt_version
    folder = tmp_path_factory.mktemp(f"matrix_{version}")
    made = {"integration": slim_copy(folder / "integration"), "host": folder / "host"}
    write_host(made["host"], "  +materialized: table\n  +schema: marts\n" + TABLE_OVERRIDE)
    wh = make_warehouse("duckdb", "mx_deps")
    for name, project in made.items():
        deps = dbt(venv, project, wh, name, "deps")
        assert deps.ok, deps.output[-3000:]
    return made


def test_demo_builds(dbt_version: tuple[str, Path], warehouse_kind: str, make_warehouse: Any) -> None:
    """`dbt build` of kanon itself: the example's seeds, its k-anonymous mart, every test."""
    version, venv = dbt_version
    wh = make_warehouse(warehouse_kind, "mx_demo")
    result = dbt(venv, ROOT, wh, "demo", "build", "--target", warehouse_kind)
    assert result.ok, result.output[-4000:]
    assert f"dbt={version}." in version_of(result), version_of(result)
    statuses = {name: str(item["status"]) for name, item in result.results.items()}
    assert statuses and set(statuses.values()) <= {"success", "pass"}, statuses
    assert released(wh, result.invocation_id) == {"circulation_by_branch_age_title": ("counts", "RELEASED")}


def test_each_kind_published_then_refused(dbt_version: tuple[str, Path], warehouse_kind: str,
                                          make_warehouse: Any, projects: dict[str, Path]) -> None:
    """Records, table and hand-written releases published; then each of the four kinds refused
    at the gate (counts: a NULL person under null_unit='error'), the last release kept."""
    _, venv = dbt_version
    wh = make_warehouse(warehouse_kind, "mx_kinds")
    built = dbt(venv, projects["integration"], wh, "publish", "build", "--resource-type", "seed",
                "--resource-type", "model", "--select", *SEEDS, *PUBLISHED)
    assert built.ok, built.output[-4000:]
    assert released(wh, built.invocation_id) == {name: (kind, "RELEASED") for name, kind in PUBLISHED.items()}
    gate = wh.relation("release_gate")
    before = sorted(map(repr, wh.query(f"select * from {gate}")))
    refused = dbt(venv, projects["integration"], wh, "refuse", "run", "--select", *REFUSED, "--vars", REFUSING_VARS)
    assert not refused.ok, refused.output[-3000:]
    assert {name: str(refused.results[name]["status"]) for name in REFUSED} == dict.fromkeys(REFUSED, "error")
    assert released(wh, refused.invocation_id) == {name: (kind, "REFUSED") for name, kind in REFUSED.items()}
    assert sorted(map(repr, wh.query(f"select * from {gate}"))) == before


def test_audit_trail_across_host_defaults(dbt_version: tuple[str, Path], warehouse_kind: str,
                                          make_warehouse: Any, projects: dict[str, Path]) -> None:
    """A host project whose models default to `+materialized: table` (with the override for kanon's
    audit models its error asks for) and `+schema: marts`: its two marts released, the trail
    kanon's own tables in its own schema (tests/host/test_host_settings.py)."""
    _, venv = dbt_version
    host = Host(projects["host"], make_warehouse(warehouse_kind, "mx_host"))
    host.runs["build"] = dbt(venv, host.path, host.wh, "host", "build")
    assert host.runs["build"].ok, host.runs["build"].output[-4000:]
    assert host.released("build") == BOTH_RELEASED
    assert_trail_is_kanons(host)
