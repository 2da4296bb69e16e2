"""kanon.privacy_unit_clean: ids that collide once trimmed and lower-cased fail, with counts only.

Fixtures: integration_tests/seeds/privacy_unit. The clean seed's tests pass as they are; the
dirty seed's are pinned with error_if/warn_if "!=N" (they pass exactly when kanon finds N, with
fail_calc pinning each of the two counts). One `dbt build` per warehouse runs them all; the tests
below read run_results.json and re-run the compiled SQL. Bad arguments are parse errors, checked
on a copy of the integration project holding only these seeds.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from support import INTEGRATION, ROOT
from support.projects import DbtProject, copy_project
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

PACKAGE = "kanon_integration_tests"
SEEDS = INTEGRATION / "seeds" / "privacy_unit"
COLUMNS = ["n_colliding_ids", "n_spellings"]

# dbt test name -> (dbt's failure count under the test's fail_calc, the rows kanon returns)
PASSING: dict[str, tuple[int, list[tuple[int, ...]]]] = {
    "privacy_unit_clean__passes_on_clean_ids": (0, []),
    "privacy_unit_clean__passes_on_an_integer_id": (0, []),
    "privacy_unit_clean__passes_on_the_dirty_seeds_integer_id": (0, []),
}
# 'p1', 'P1', 'p1 ' and 'p2', tab + 'p2', 'p2' + line feed: two ids, six spellings
FAILING: dict[str, tuple[int, list[tuple[int, ...]]]] = {
    "privacy_unit_clean__fails_on_colliding_ids": (1, [(2, 6)]),  # one row: the default fail_calc
    "privacy_unit_clean__counts_the_colliding_ids": (2, [(2, 6)]),
    "privacy_unit_clean__counts_the_spellings": (6, [(2, 6)]),
}
DIRTY_SPELLINGS = {"p1", "P1", "p1 ", "p2", "\tp2", "p2\n", "p3", "p 4", "p4", "p10"}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _tests_by_name(result: DbtResult) -> dict[str, dict[str, Any]]:
    prefix = f"test.{PACKAGE}."
    return {
        uid[len(prefix):].rsplit(".", 1)[0]: item for uid, item in result.results.items() if uid.startswith(prefix)
    }


def _manifest_config(project: DbtProject, unique_id: str) -> dict[str, Any]:
    """A node's config as dbt resolved it (the yml's error_if, warn_if, fail_calc)."""
    manifest = json.loads((project.state_dir / "target" / "manifest.json").read_text())
    return dict(manifest["nodes"][unique_id]["config"])


def _query(wh: Warehouse, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    conn = wh.connect()
    try:
        cursor = conn.cursor()
        cursor.execute(sql)
        columns = [str(d[0]).lower() for d in cursor.description]
        rows = [tuple(int(v) if isinstance(v, int) else v for v in row) for row in cursor.fetchall()]
    finally:
        conn.close()
    return columns, rows


@pytest.fixture(scope="module")
def privacy_build(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse, DbtResult]:
    wh = make_warehouse(warehouse_kind, "pu")
    project = DbtProject(INTEGRATION, wh, artifacts=True)  # the tests' configs are read from manifest.json
    project.run("deps")
    # expect_ok=None: a wrong pin fails its own test below, with the counts in the message
    result = project.run("build", "--select", "path:seeds/privacy_unit", expect_ok=None)
    if not result.results:
        pytest.fail(f"dbt build produced no run results:\n{result.output[-6000:]}", pytrace=False)
    return project, wh, result


def test_build_runs_every_case_and_nothing_else(privacy_build: tuple[DbtProject, Warehouse, DbtResult]) -> None:
    _, _, result = privacy_build
    assert set(_tests_by_name(result)) == set(PASSING) | set(FAILING)
    seeds = {uid: item["status"] for uid, item in result.results.items() if uid.startswith("seed.")}
    assert seeds == {
        f"seed.{PACKAGE}.privacy_unit_events_clean": "success",
        f"seed.{PACKAGE}.privacy_unit_events_dirty": "success",
    }
    assert result.ok, result.output[-4000:]


def test_the_dirty_seed_keeps_its_padding(privacy_build: tuple[DbtProject, Warehouse, DbtResult]) -> None:
    """The premise of the failing cases: the loader kept the trailing space, the tab and the line feed."""
    _, wh, _ = privacy_build
    rows = wh.query(f"select distinct patron_id from {wh.relation('privacy_unit_events_dirty')}")
    assert {r[0] for r in rows} == DIRTY_SPELLINGS | {None}


@pytest.mark.parametrize("name", sorted(PASSING))
def test_clean_ids_pass(privacy_build: tuple[DbtProject, Warehouse, DbtResult], name: str) -> None:
    _, wh, result = privacy_build
    item = _tests_by_name(result)[name]
    assert (item["status"], item["failures"]) == ("pass", 0), item.get("message")
    assert _query(wh, item["compiled_code"]) == (COLUMNS, PASSING[name][1])


@pytest.mark.parametrize("name", sorted(FAILING))
def test_colliding_ids_fail_with_the_exact_counts(
    privacy_build: tuple[DbtProject, Warehouse, DbtResult], name: str
) -> None:
    """dbt's verdict: the pin "!=N" held (its fail_calc gives N, so unpinned, error_if "!=0", the
    test fails); kanon's answer: the compiled test returns one row, 2 colliding ids, 6 spellings."""
    project, wh, result = privacy_build
    item = _tests_by_name(result)[name]
    failures, rows = FAILING[name]
    assert item["status"] == "pass", item.get("message")
    config = _manifest_config(project, item["unique_id"])
    assert (config["error_if"], config["warn_if"]) == (f"!={failures}", f"!={failures}")
    _, got = _query(wh, f"select {config['fail_calc']} as failures from ({item['compiled_code']}) as failing")
    assert got == [(failures,)]
    assert _query(wh, item["compiled_code"]) == (COLUMNS, rows)


def test_a_failing_test_returns_and_stores_no_id(privacy_build: tuple[DbtProject, Warehouse, DbtResult]) -> None:
    """What a failure prints or stores (--store-failures) is two counts: no column or value is an id."""
    project, wh, _ = privacy_build
    name = "privacy_unit_clean__fails_on_colliding_ids"
    project.run("test", "--select", name, "--store-failures")  # passes: the pin holds here too
    columns, rows = _query(wh, f"select * from {wh.relation(name, 'dbt_test__audit')}")
    assert columns == COLUMNS and rows == [(2, 6)]
    ids = DIRTY_SPELLINGS | {s.strip().lower() for s in DIRTY_SPELLINGS}
    assert not {str(value) for row in rows for value in row} & ids
    compiled = project.compiled_test_sql(name)
    final_select = compiled[compiled.rindex("select"):]
    assert "patron_id" not in final_select and "spelling" not in final_select.replace("n_spellings", "")


# --- bad arguments: parse errors that name the test and the argument -----------------------------

BAD_ARGUMENTS = {
    "model_level": (
        "    data_tests:\n      - kanon.privacy_unit_clean\n",
        "argument `column_name` is missing: list the test under the privacy-unit column",
    ),
    "two_columns": (
        "    data_tests:\n      - kanon.privacy_unit_clean:\n"
        "          arguments: {column_name: [patron_id, patron_number]}\n",
        "argument `column_name` must be the name of one column, got ['patron_id', 'patron_number']",
    ),
    "blank_column": (
        "    data_tests:\n      - kanon.privacy_unit_clean:\n          arguments: {column_name: ' '}\n",
        "argument `column_name` must be the name of one column, got ' '",
    ),
    "unknown_argument": (
        "    columns:\n      - name: patron_id\n        data_tests:\n"
        "          - kanon.privacy_unit_clean:\n              arguments: {case_sensitive: true}\n",
        "takes no keyword argument 'case_sensitive'",
    ),
}


@pytest.fixture(scope="module")
def bad_project(
    warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory
) -> DbtProject:
    """A copy of the integration project holding only the privacy-unit seeds, kanon installed from ROOT."""
    project_dir = copy_project(INTEGRATION, tmp_path_factory.mktemp("pu_bad") / "kanon_privacy_unit_bad")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (project_dir / "package-lock.yml").unlink(missing_ok=True)
    for folder in ("seeds", "models", "macros"):
        shutil.rmtree(project_dir / folder, ignore_errors=True)
    seeds = project_dir / "seeds" / "privacy_unit"
    seeds.mkdir(parents=True)
    for csv in SEEDS.glob("*.csv"):
        shutil.copy(csv, seeds / csv.name)
    project = DbtProject(project_dir, make_warehouse(warehouse_kind, "pubad"))
    project.run("deps")
    return project


@pytest.mark.parametrize("case", sorted(BAD_ARGUMENTS))
def test_bad_arguments_are_refused_naming_the_test(bad_project: DbtProject, case: str) -> None:
    body, message = BAD_ARGUMENTS[case]
    yml: Path = bad_project.project_dir / "seeds" / "privacy_unit" / "_bad.yml"
    yml.write_text(f"version: 2\nseeds:\n  - name: privacy_unit_events_dirty\n{body}")
    result = bad_project.run("parse", expect_ok=False)
    output = " ".join(ANSI.sub("", result.output).split())
    assert "Compilation Error in test kanon_privacy_unit_clean_privacy_unit_events_dirty" in output, output[-3000:]
    assert " ".join(message.split()) in output, output[-3000:]
    if case != "unknown_argument":  # that one is Jinja's own message
        assert "kanon.privacy_unit_clean in test.kanon_integration_tests." in output, output[-3000:]
