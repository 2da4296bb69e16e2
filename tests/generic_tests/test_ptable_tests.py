"""kanon's perturbation-table tests pass on the generator's tables and find exactly the offending
counts of broken ones, on DuckDB and Postgres.

The fixtures are integration_tests/seeds/ptable: two tables `python -m kanon_tools ptable` wrote
(ptable_good; ptable_unmet, whose counts 1..4 cannot have the variance asked for) and ptable_good
broken one way each (an interval shifted, a count missing, p off its interval, a biased count, a
perturbation beyond D, values in 1..js, a zero that moves). Passing cases are plain dbt tests;
failing ones are pinned with error_if/warn_if "!=N". One `dbt build` per warehouse runs them all;
each case's compiled SQL is then run again and its rows compared with the rows below, so a test
that returned the right number of wrong rows would fail too.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from support import INTEGRATION, ROOT
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

PACKAGE = "kanon_integration_tests"
SELECT = f"package:{PACKAGE},path:seeds/ptable"

# What each test returns: keys and counts (and a count's mean or variance), never anything else.
COLUMNS: dict[str, list[str]] = {
    "ptable_tiles_key_space": ["i", "n_missing_counts", "n_gaps", "n_overlaps", "n_empty", "n_bad_bounds"],
    "ptable_probabilities_sum_to_one": ["i", "n_p_off_interval", "p_sum"],
    "ptable_unbiased": ["i", "mean_perturbation"],
    "ptable_variance": ["i", "achieved_variance"],
    "ptable_max_perturbation": ["i", "n_too_far", "n_v_not_j_minus_i"],
    "ptable_no_small_values": ["i", "n_small_values"],
    "ptable_zero_stays_zero": ["n_rows", "n_moved"],
}
SEEDS = ("ptable_good", "ptable_unmet", "ptable_shifted", "ptable_gapped", "ptable_p_off", "ptable_biased",
         "ptable_too_far", "ptable_small_values", "ptable_zero_moves")
KEY_SPACE = 2**32

# (kanon test, case) -> the rows it must return; every (test, seed) not listed returns none.
# Floats are the fixtures' own arithmetic, by hand: e.g. ptable_biased's i = 6 moves its stay
# interval [1654720496, 2640246800) to v = 1, so its mean is that width / 2^32.
FAILING: dict[tuple[str, str], list[tuple[Any, ...]]] = {
    ("ptable_tiles_key_space", "ptable_shifted"): [(4, 0, 1, 1, 0, 0)],
    ("ptable_tiles_key_space", "ptable_gapped"): [(3, 1, 0, 0, 0, 0), (5, 0, 0, 0, 0, 1)],
    ("ptable_probabilities_sum_to_one", "ptable_gapped"): [(5, 1, 1.0)],
    ("ptable_probabilities_sum_to_one", "ptable_p_off"): [(4, 1, 1 - 0.08101464994251728 + 0.081)],
    ("ptable_unbiased", "ptable_gapped_exact"): [(5, 14 / KEY_SPACE)],
    ("ptable_unbiased", "ptable_biased"): [(6, (2640246800 - 1654720496) / KEY_SPACE)],
    ("ptable_unbiased", "ptable_too_far"): [(6, (KEY_SPACE - 4035086786) / KEY_SPACE)],
    ("ptable_unbiased", "ptable_small_values"): [
        (3, -(2645984177 - 767405327) / KEY_SPACE), (6, -3 * 259880510 / KEY_SPACE)],
    ("ptable_unbiased", "ptable_zero_moves"): [(0, 1.5)],
    ("ptable_variance", "ptable_unmet"): [(1, 4.000000001396984), (2, 6.000000003259629), (3, 6.0000000055879354),
                                          (4, 4.000000008381903)],
    ("ptable_variance", "ptable_biased"): [(6, 2.676808499046743)],
    ("ptable_variance", "ptable_too_far"): [(6, 2.9198957882007006)],
    ("ptable_variance", "ptable_small_values"): [(3, 2.746080077942838), (6, 4.1007688302666345)],
    ("ptable_max_perturbation", "ptable_too_far"): [(5, 0, 1), (6, 1, 0)],
    ("ptable_max_perturbation", "ptable_small_values"): [(6, 1, 0)],
    ("ptable_no_small_values", "ptable_small_values"): [(3, 1), (6, 1)],
    ("ptable_zero_stays_zero", "ptable_zero_moves"): [(2, 1)],
}
# cases beyond one per (test, seed): another argument or a where on the same seed
EXTRA_PASSING = (("ptable_unbiased", "ptable_good_exact"), ("ptable_variance", "ptable_unmet_above_js"))


def cases() -> dict[str, list[tuple[Any, ...]]]:
    """Every dbt test name of the suite -> the rows it must return."""
    pairs = [(test, seed) for test in COLUMNS for seed in SEEDS] + list(EXTRA_PASSING)
    pairs += [pair for pair in FAILING if pair not in pairs]
    return {f"{test}__{'fail' if FAILING.get((test, case)) else 'pass'}__{case}": FAILING.get((test, case), [])
            for test, case in pairs}


def _same(got: tuple[Any, ...], expected: tuple[Any, ...]) -> bool:
    return len(got) == len(expected) and all(
        math.isclose(float(g), float(e), rel_tol=1e-9, abs_tol=1e-15) if isinstance(e, float) else g == e
        for g, e in zip(got, expected, strict=True))


@pytest.fixture(scope="module")
def ptable_build(warehouse_kind: str, make_warehouse: Any) -> tuple[Warehouse, dict[str, dict[str, Any]]]:
    """One `dbt build` of the ptable fixtures and their tests, per warehouse: results by test name."""
    warehouse = make_warehouse(warehouse_kind, "ptable")
    project = DbtProject(INTEGRATION, warehouse)
    project.run("deps")
    result: DbtResult = project.run("build", "--select", SELECT, expect_ok=None)
    seeds = {uid: item["status"] for uid, item in result.results.items() if uid.startswith("seed.")}
    assert len(seeds) == len(SEEDS) and set(seeds.values()) == {"success"}, result.output[-4000:]
    prefix = f"test.{PACKAGE}."
    return warehouse, {uid[len(prefix):].rsplit(".", 1)[0]: item for uid, item in result.results.items()
                       if uid.startswith(prefix)}


def test_build_runs_every_ptable_case_and_nothing_else(ptable_build: tuple[Warehouse, dict[str, Any]]) -> None:
    _, ran = ptable_build
    expected = set(cases())
    assert set(ran) == expected, f"missing: {sorted(expected - set(ran))}; unexpected: {sorted(set(ran) - expected)}"


@pytest.mark.parametrize("kanon_test", sorted(COLUMNS))
def test_ptable_test_finds_exactly_the_offending_counts(ptable_build: tuple[Warehouse, dict[str, Any]],
                                                        kanon_test: str) -> None:
    warehouse, ran = ptable_build
    mine = {name: rows for name, rows in cases().items() if name.startswith(kanon_test + "__")}
    assert any(rows for rows in mine.values()) and any(not rows for rows in mine.values())
    problems = []
    conn = warehouse.connect()
    try:
        for name, expected in mine.items():
            item = ran[name]
            # dbt's verdict: a failing case passes only because its "!=N" pin held
            if item["status"] != "pass":
                problems.append(f"{name}: dbt status {item['status']} ({item.get('message')}), expected pass")
            cursor = conn.cursor()
            cursor.execute(item["compiled_code"])
            columns = [str(d[0]).lower() for d in cursor.description]
            rows = sorted(cursor.fetchall(), key=lambda r: tuple(-1 if v is None else v for v in r))
            if columns != COLUMNS[kanon_test]:
                problems.append(f"{name}: returns columns {columns}, expected {COLUMNS[kanon_test]}")
            if len(rows) != len(expected) or not all(map(_same, rows, expected)):
                problems.append(f"{name}: returned {rows}, expected {expected}")
    finally:
        conn.close()
    assert not problems, "\n".join(problems)


def test_ptable_seeds_load_key_bounds_as_bigint(ptable_build: tuple[Warehouse, dict[str, Any]]) -> None:
    """The premise of every case: 2^32 arrived whole (an integer column would have refused it)."""
    warehouse, _ = ptable_build
    assert warehouse.query(f"select max(key_to) from {warehouse.schema}.ptable_good") == [(KEY_SPACE,)]


def _doc_block(marker: str) -> str:
    """The ```yaml block of docs/reference/noise.md that holds `marker`, as the docs show it."""
    blocks = re.findall(r"```yaml\n(.*?)```", (ROOT / "docs" / "reference" / "noise.md").read_text(), re.DOTALL)
    return next(block for block in blocks if marker in block)


def test_the_docs_tests_pass_on_a_generated_seed_and_fail_on_a_shifted_interval(
        warehouse_kind: str, make_warehouse: Any, tmp_path: Path) -> None:
    """A host project set up as docs/reference/noise.md says, tests given the ordinary way (no
    pins): the generated table passes all seven; the same table with one interval shifted 1000
    keys fails `dbt build`, by kanon.ptable_tiles_key_space alone, with one row."""
    project_dir = tmp_path / "ptable_host"
    (project_dir / "seeds").mkdir(parents=True)
    settings = _doc_block("+column_types")
    (project_dir / "dbt_project.yml").write_text(
        "name: my_project\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        + settings[settings.index("seeds:"):]
        + settings[settings.index("    ptable_k3:"):].replace("ptable_k3", "ptable_shifted"))
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    tests = _doc_block("kanon.ptable_tiles_key_space")
    entry = tests[tests.index("  - name: ptable_k3"):]
    (project_dir / "seeds" / "_seeds.yml").write_text(tests + entry.replace("ptable_k3", "ptable_shifted"))
    fixtures = INTEGRATION / "seeds" / "ptable"
    (project_dir / "seeds" / "ptable_k3.csv").write_bytes((fixtures / "ptable_good.csv").read_bytes())
    (project_dir / "seeds" / "ptable_shifted.csv").write_bytes((fixtures / "ptable_shifted.csv").read_bytes())

    project = DbtProject(project_dir, make_warehouse(warehouse_kind, "ptablehost"))
    project.run("deps")
    result = project.run("build", "--select", "ptable_k3", "ptable_shifted", expect_ok=False)
    tests_run = {uid.split(".")[2]: item for uid, item in result.results.items() if uid.startswith("test.")}
    assert len(tests_run) == 14, sorted(tests_run)
    failing = {name: item["message"] for name, item in tests_run.items() if item["status"] != "pass"}
    assert list(failing) == ["kanon_ptable_tiles_key_space_ptable_shifted_"], failing
    assert "Got 1 result, configured to fail if != 0" in next(iter(failing.values()))
