"""kanon's hierarchy tests pass on good hierarchies and find exactly the offending groups on bad ones.

The fixtures live in integration_tests/seeds/hierarchy and integration_tests/models/hierarchy.
Every kanon test has passing cases (plain dbt tests: they pass when kanon finds 0 offending
groups) and failing cases pinned with error_if/warn_if "!=N" (they pass exactly when kanon finds
N). One `dbt build` per warehouse runs them all; the tests below read run_results.json.

A second build, on a copy of the integration project, applies the tests the ordinary way (no
pins) to a hierarchy whose leaf has two parents and to one whose labels collide across levels,
and expects `dbt build` to fail, naming each.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DBT, DbtResult
from support import INTEGRATION, ROOT
from support.projects import DbtProject, copy_project, install_packages
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

PACKAGE = "kanon_integration_tests"
# Only this suite's nodes: other suites add their own fixtures to the integration project.
SELECT = (
    f"package:{PACKAGE},path:seeds/hierarchy",
    f"package:{PACKAGE},path:models/hierarchy",
)

# What each kanon test returns: keys and counts, never whole rows.
COLUMNS: dict[str, list[str]] = {
    "hierarchy_leaves_unique": ["leaf", "n_rows"],
    "hierarchy_single_parent": ["level", "label", "n_parents"],
    "hierarchy_single_root": ["n_roots"],
    "hierarchy_no_blank_labels": ["level", "n_blank"],
    "hierarchy_covers": ["value", "n_rows"],
    "hierarchy_levels_unambiguous": ["label", "n_levels", "n_leaves"],
}

# kanon test -> {dbt test name in the integration project: the offending groups kanon must return}.
# A failing case's pin in the yml (error_if/warn_if "!=N") must equal the number of groups here.
EXPECTED: dict[str, dict[str, set[tuple[Any, ...]]]] = {
    "hierarchy_leaves_unique": {
        "hierarchy_leaves_unique__pass__hierarchy_good": set(),
        "hierarchy_leaves_unique__pass__hierarchy_age": set(),
        "hierarchy_leaves_unique__pass__hierarchy_pass_through": set(),
        "hierarchy_leaves_unique__pass__hierarchy_levels_collide": set(),
        "hierarchy_leaves_unique__pass__hierarchy_two_roots": set(),
        "hierarchy_leaves_unique__pass__hierarchy_null_label": set(),
        "hierarchy_leaves_unique__pass__hierarchy_whitespace_labels": set(),
        "hierarchy_leaves_unique__fail__hierarchy_two_parents": {("Zürich Road", 2)},
    },
    "hierarchy_single_parent": {
        "hierarchy_single_parent__pass__hierarchy_good": set(),
        "hierarchy_single_parent__pass__hierarchy_age": set(),
        "hierarchy_single_parent__pass__hierarchy_pass_through": set(),
        "hierarchy_single_parent__pass__hierarchy_levels_collide": set(),
        "hierarchy_single_parent__pass__hierarchy_two_roots": set(),
        "hierarchy_single_parent__pass__hierarchy_null_label": set(),
        "hierarchy_single_parent__pass__hierarchy_whitespace_labels": set(),
        "hierarchy_single_parent__fail__hierarchy_two_parents": {
            ("level_0", "Zürich Road", 2),
            ("level_1", "Südstadt", 2),
        },
    },
    "hierarchy_single_root": {
        "hierarchy_single_root__pass__hierarchy_good": set(),
        "hierarchy_single_root__pass__hierarchy_age": set(),
        "hierarchy_single_root__pass__hierarchy_pass_through": set(),
        "hierarchy_single_root__pass__hierarchy_levels_collide": set(),
        "hierarchy_single_root__pass__hierarchy_two_parents": set(),
        "hierarchy_single_root__pass__hierarchy_null_label": set(),
        "hierarchy_single_root__pass__hierarchy_whitespace_labels": set(),
        "hierarchy_single_root__fail__hierarchy_two_roots": {(2,)},
    },
    "hierarchy_no_blank_labels": {
        "hierarchy_no_blank_labels__pass__hierarchy_good": set(),
        "hierarchy_no_blank_labels__pass__hierarchy_age": set(),
        "hierarchy_no_blank_labels__pass__hierarchy_pass_through": set(),
        "hierarchy_no_blank_labels__pass__hierarchy_levels_collide": set(),
        "hierarchy_no_blank_labels__pass__hierarchy_two_parents": set(),
        "hierarchy_no_blank_labels__pass__hierarchy_two_roots": set(),
        "hierarchy_no_blank_labels__fail__hierarchy_null_label": {("level_1", 1)},
        "hierarchy_no_blank_labels__fail__hierarchy_whitespace_labels": {
            ("level_0", 2),
            ("level_1", 2),
        },
    },
    "hierarchy_covers": {
        "hierarchy_covers__pass__hierarchy_people_home_area": set(),
        "hierarchy_covers__fail__hierarchy_people_work_area": {
            ("Dock Road", 2),
            ("Zurich Road", 1),
        },
        "hierarchy_covers__pass__hierarchy_people_age": set(),
        "hierarchy_covers__fail__hierarchy_people_age_at_first_visit": {("99", 2)},
    },
    "hierarchy_levels_unambiguous": {
        "hierarchy_levels_unambiguous__pass__hierarchy_good": set(),
        "hierarchy_levels_unambiguous__pass__hierarchy_age": set(),
        "hierarchy_levels_unambiguous__pass__hierarchy_two_parents": set(),
        "hierarchy_levels_unambiguous__pass__hierarchy_two_roots": set(),
        "hierarchy_levels_unambiguous__pass__hierarchy_null_label": set(),
        "hierarchy_levels_unambiguous__pass__hierarchy_whitespace_labels": set(),
        # 65+ and 13-24 repeat across levels, each standing for the same leaves every time
        "hierarchy_levels_unambiguous__pass__hierarchy_pass_through": set(),
        # (label, levels it appears at, leaves under it at any of them)
        "hierarchy_levels_unambiguous__fail__hierarchy_levels_collide": {
            ("10100", 2, 2),
            ("10101", 2, 2),
            ("North", 2, 3),
        },
    },
}

ANSI = re.compile(r"\x1b\[[0-9;]*m")
INTEGER_TYPES = {"integer", "int", "int4", "bigint", "int8"}
TEXT_TYPES = {"text", "varchar", "character varying"}


def _dbt_deps(project_dir: Path, warehouse: Warehouse) -> None:
    """`dbt deps`, once per test run (support.projects.install_packages; DbtProject.run always adds
    --target-path, which `dbt deps` rejects)."""

    def deps() -> DbtResult:
        proc = subprocess.run(
            [DBT, "deps", "--project-dir", str(project_dir)],
            check=False,
            cwd=project_dir,
            env=warehouse.env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            timeout=300,
        )
        return DbtResult(returncode=proc.returncode, output=proc.stdout)

    install_packages(project_dir, deps)


def _query(warehouse: Warehouse, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names (lower-cased) and rows of a query, with integers as plain ints."""
    conn = warehouse.connect()
    try:
        cursor = conn.cursor()
        cursor.execute(sql)
        columns = [str(d[0]).lower() for d in cursor.description]
        rows = [
            tuple(int(v) if isinstance(v, int) else v for v in row)
            for row in cursor.fetchall()
        ]
    finally:
        conn.close()
    return columns, rows


def _tests_by_name(result: DbtResult) -> dict[str, dict[str, Any]]:
    """This project's test results keyed by test name (unique ids end in a hash)."""
    prefix = f"test.{PACKAGE}."
    return {
        uid[len(prefix) :].rsplit(".", 1)[0]: item
        for uid, item in result.results.items()
        if uid.startswith(prefix)
    }


@pytest.fixture(scope="module")
def hierarchy_build(
    warehouse_kind: str, make_warehouse: Any
) -> tuple[Warehouse, DbtResult]:
    """One `dbt build` of the hierarchy fixtures and their tests, per warehouse."""
    warehouse = make_warehouse(warehouse_kind, "hier")
    _dbt_deps(INTEGRATION, warehouse)
    project = DbtProject(INTEGRATION, warehouse)
    # expect_ok=None: a wrong pin fails its own pytest test below, with the counts in the message.
    result = project.run("build", "--select", *SELECT, expect_ok=None)
    if not result.results:
        pytest.fail(
            f"dbt build produced no run results:\n{result.output[-6000:]}",
            pytrace=False,
        )
    return warehouse, result


def test_build_runs_every_hierarchy_case_and_nothing_else(
    hierarchy_build: tuple[Warehouse, DbtResult],
) -> None:
    _, result = hierarchy_build
    expected = {name for cases in EXPECTED.values() for name in cases}
    ran = set(_tests_by_name(result))
    assert ran == expected, (
        f"missing: {sorted(expected - ran)}; unexpected: {sorted(ran - expected)}"
    )
    not_built = {
        uid: item["status"]
        for uid, item in result.results.items()
        if uid.startswith(("seed.", "model.")) and item["status"] != "success"
    }
    assert not not_built, (
        f"fixtures failed to build: {not_built}\n{result.output[-4000:]}"
    )
    assert result.ok, result.output[-4000:]


@pytest.mark.parametrize("kanon_test", sorted(EXPECTED))
def test_kanon_test_finds_exactly_the_offending_groups(
    hierarchy_build: tuple[Warehouse, DbtResult], kanon_test: str
) -> None:
    warehouse, result = hierarchy_build
    by_name = _tests_by_name(result)
    cases = EXPECTED[kanon_test]
    assert any(not rows for rows in cases.values()) and any(
        rows for rows in cases.values()
    )
    problems = []
    for name, expected_rows in cases.items():
        if name not in by_name:
            problems.append(f"{name}: did not run")
            continue
        item = by_name[name]
        # dbt's verdict: a passing case passes as is; a failing case passes only because its
        # error_if/warn_if "!=N" pin held, i.e. kanon returned exactly N offending groups.
        if item["status"] != "pass":
            problems.append(
                f"{name}: dbt status {item['status']} ({item.get('message')}), expected pass"
            )
        # kanon's own answer: re-run the compiled test and compare its rows.
        columns, rows = _query(warehouse, item["compiled_code"])
        if columns != COLUMNS[kanon_test]:
            problems.append(
                f"{name}: returns columns {columns}, expected {COLUMNS[kanon_test]}"
            )
        if sorted(rows, key=repr) != sorted(expected_rows, key=repr):
            problems.append(
                f"{name}: returned {sorted(rows, key=repr)}, expected {sorted(expected_rows, key=repr)}"
            )
    assert not problems, "\n".join(problems)


def test_covers_compares_an_integer_column_with_a_text_hierarchy(
    hierarchy_build: tuple[Warehouse, DbtResult],
) -> None:
    """The premise of the integer covers cases: the data column is an integer, level_0 is text."""
    warehouse, _ = hierarchy_build
    rows = warehouse.query(
        "select table_name, column_name, data_type from information_schema.columns "
        f"where table_schema = '{warehouse.schema}' and ("
        "(table_name = 'hierarchy_people' and column_name in ('age', 'age_at_first_visit'))"
        " or (table_name = 'hierarchy_age' and column_name = 'level_0'))"
    )
    types = {
        f"{table}.{column}": str(data_type).lower() for table, column, data_type in rows
    }
    assert types["hierarchy_people.age"] in INTEGER_TYPES, types
    assert types["hierarchy_people.age_at_first_visit"] in INTEGER_TYPES, types
    assert types["hierarchy_age.level_0"] in TEXT_TYPES, types


def test_levels_unambiguous_compares_labels_as_text(
    hierarchy_build: tuple[Warehouse, DbtResult],
) -> None:
    """The premise of the colliding case: its leaves load as integers and its labels as text, and
    the leaf 10100 still meets the label '10100' (the case's expected rows say so): a label is
    what is published, text."""
    warehouse, _ = hierarchy_build
    rows = warehouse.query(
        "select column_name, data_type from information_schema.columns "
        f"where table_schema = '{warehouse.schema}' and table_name = 'hierarchy_levels_collide' "
        "and column_name in ('level_0', 'level_1')"
    )
    types = {column: str(data_type).lower() for column, data_type in rows}
    assert types["level_0"] in INTEGER_TYPES, types
    assert types["level_1"] in TEXT_TYPES, types


# Invalid hierarchies given kanon's tests the ordinary way (no pins), as the README says: seed
# name -> (the fixture it copies, the kanon tests that must fail on it with their result counts).
BROKEN: dict[str, tuple[str, dict[str, int]]] = {
    "hierarchy_branch_area": (
        "hierarchy_two_parents.csv",  # the leaf Zürich Road has two parents, Südstadt too
        {"hierarchy_leaves_unique": 1, "hierarchy_single_parent": 2},
    ),
    "hierarchy_area_code": (
        "hierarchy_levels_collide.csv",  # 10100 -> 10101 and 10101 -> 10100; North at two levels
        {"hierarchy_levels_unambiguous": 3},
    ),
}
KANON_TESTS = (
    "hierarchy_leaves_unique",
    "hierarchy_single_parent",
    "hierarchy_single_root",
    "hierarchy_no_blank_labels",
    "hierarchy_levels_unambiguous",
)
BROKEN_YML = "version: 2\nseeds:\n" + "".join(
    f"  - name: {seed}\n    data_tests:\n"
    + "".join(f"      - kanon.{test}\n" for test in KANON_TESTS)
    for seed in BROKEN
)


def test_invalid_hierarchies_fail_dbt_build_naming_the_seed(
    warehouse_kind: str, make_warehouse: Any, tmp_path: Path
) -> None:
    """One build of two broken hierarchies: a leaf with two parents, and labels that collide
    across levels. Each fails exactly its tests, named with the seed, and nothing else."""
    project_dir = copy_project(INTEGRATION, tmp_path / "kanon_hierarchy_broken")
    # The copy lives outside the repository: install kanon from its absolute path.
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (project_dir / "package-lock.yml").unlink(missing_ok=True)
    # Only the broken hierarchies: other suites' fixtures are not this test's business.
    for folder in ("seeds", "models"):
        shutil.rmtree(project_dir / folder, ignore_errors=True)
    seeds = project_dir / "seeds" / "hierarchy"
    seeds.mkdir(parents=True)
    for seed, (fixture, _) in BROKEN.items():
        shutil.copy(INTEGRATION / "seeds" / "hierarchy" / fixture, seeds / f"{seed}.csv")
    (seeds / "_broken.yml").write_text(BROKEN_YML)

    warehouse = make_warehouse(warehouse_kind, "hierfail")
    _dbt_deps(project_dir, warehouse)
    project = DbtProject(project_dir, warehouse)
    result = project.run("build", "--select", *BROKEN, expect_ok=False)
    output = ANSI.sub("", result.output)

    statuses = {
        uid.split(".")[2]: item["status"]
        for uid, item in result.results.items()
        if uid.startswith(("seed.", "test.")) and uid.count(".") >= 2
    }
    for seed in BROKEN:
        assert statuses.get(seed) == "success", output[-4000:]
    expected = {
        f"kanon_{test}_{seed}": count
        for seed, (_, failing) in BROKEN.items()
        for test, count in failing.items()
    }
    failing = sorted(name for name, status in statuses.items() if status == "fail")
    assert [re.sub(r"_+$", "", name) for name in failing] == sorted(expected), statuses
    assert len(statuses) == len(BROKEN) * (1 + len(KANON_TESTS)), statuses
    # dbt's summary: a block per failing test, "Failure in test <name> (<yml>)" then its count
    blocks = {block.split()[0]: block for block in output.split("Failure in test ")[1:]}
    for name in failing:
        count = expected[re.sub(r"_+$", "", name)]
        assert name in blocks, output[-4000:]
        assert blocks[name].startswith(f"{name} (seeds/hierarchy/_broken.yml)"), blocks[name][:500]
        got = re.search(r"Got (\d+) results?, configured to fail if != 0", blocks[name])
        assert got and int(got.group(1)) == count, (name, blocks[name][:500])
