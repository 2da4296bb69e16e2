"""The release engine and its fail-closed gate, driven through dbt on DuckDB and Postgres.

Fixtures: integration_tests/seeds/release and integration_tests/models/release.
"""

from __future__ import annotations

import pytest
from support import INTEGRATION
from support.projects import DbtProject, assert_bad_inputs_refused
from support.warehouses import Warehouse, require_postgres

pytestmark = pytest.mark.dbt

RELEASE_NODES = ("--select", "path:seeds/release", "path:models/release", "package:kanon,path:models/audit")


@pytest.fixture(scope="module")
def built(warehouse_kind: str, make_warehouse) -> tuple[DbtProject, Warehouse]:  # type: ignore[no-untyped-def]
    wh = make_warehouse(warehouse_kind, "release")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    result = project.run("build", *RELEASE_NODES)
    project.last_build = result  # type: ignore[attr-defined]
    return project, wh


def test_release_with_quoted_names_and_odd_labels(built: tuple[DbtProject, Warehouse]) -> None:
    """Hand-worked expectation (k=2, default ladder: title (depth 3) first, then branch, age band):
    two cells pass; the two thin Cien años cells meet at region x broader age band x Fiction, and
    the one-person Coping title is suppressed."""
    _, wh = built
    rows = wh.query(f"select * from {wh.relation('release_odd_names')}")
    assert sorted(rows) == sorted(
        [
            ("Bücherei Süd", 0, "18-24", 0, "Les Misérables", 0, 2, 3),
            ("O'Brien Hall", 0, "13-17", 0, '"Hello," She Lied', 0, 2, 2),
            ("Région Nord", 1, "13-24", 1, "Fiction", 1, 2, 2),
        ]
    )
    columns = wh.query(
        "select column_name from information_schema.columns "
        f"where table_schema = '{wh.schema}' and table_name = 'release_odd_names' order by ordinal_position"
    )
    assert [c for (c,) in columns] == [
        "branch", "branch_level", "Age Band", "Age Band_level", "title", "title_level", "people", "loans",
    ]


def test_release_as_a_plain_table_has_the_same_rows(built: tuple[DbtProject, Warehouse]) -> None:
    """The long form the k_anonymous materialization stages carries the audit; the rows it
    publishes are exactly those of the same release_counts call materialized as a table."""
    _, wh = built
    published = wh.query(f"select * from {wh.relation('release_odd_names')}")
    assert published and sorted(wh.query(f"select * from {wh.relation('release_as_table')}")) == sorted(published)


def test_planner_settings_pre_hook(built: tuple[DbtProject, Warehouse]) -> None:
    """kanon.release_planner_settings: jit, nested loops and merge joins off on Postgres (see the
    macro for why); nothing to set on DuckDB, and the empty hook is skipped."""
    _, wh = built
    seen = wh.query(
        f"select settings, jit, nested_loops, merge_joins from {wh.relation('release_planner_settings_seen')}"
    )
    if wh.kind == "postgres":
        assert seen == [
            ("set jit = off; set enable_nestloop = off; set enable_mergejoin = off", "off", "off", "off")
        ]
    else:
        assert seen == [("", "none", "none", "none")]


def test_values_missing_from_a_hierarchy_warn_and_never_pass_through(built: tuple[DbtProject, Warehouse]) -> None:
    """Under k_anonymous the release counts them itself; as a plain table a compile-time scan does."""
    project, wh = built
    output = project.last_build.output  # type: ignore[attr-defined]
    assert "release_missing_label: 1 distinct value(s) of 'title' are missing from its hierarchy" in output
    assert "1 distinct value(s) of 'title' in" in output and "are missing from hierarchy" in output
    for model in ("release_missing_label", "release_missing_label_table"):
        titles = {t for (t, lvl) in wh.query(f"select title, title_level from {wh.relation(model)}")}
        assert "Les Misérables" not in titles, model
        assert "*" in titles, model  # its two readers are released at the root


def test_empty_events_release_an_empty_mart(built: tuple[DbtProject, Warehouse]) -> None:
    _, wh = built
    assert wh.query(f"select count(*) from {wh.relation('release_empty')}") == [(0,)]


@pytest.mark.parametrize(
    "test_name, failures",
    [
        ("k_anonymous__fails_on_thin_and_null_counts", 3),
        ("k_anonymous__passes_at_k2", 0),
        ("k_anonymous_records__fails_on_small_groups", 3),
        ("k_anonymous_records__passes_on_coarser_groups", 0),
        ("k_anonymous__release_odd_names", 0),
        ("k_anonymous__fails_on_what_the_gate_refuses", 8),
    ],
)
def test_generic_release_tests(built: tuple[DbtProject, Warehouse], test_name: str, failures: int) -> None:
    """Failing cases are pinned with error_if/warn_if '!=N' (dbt passes them exactly when the kanon
    test finds N offending groups); the compiled test is also re-run to count its rows directly."""
    project, wh = built
    result = project.last_build.results[test_name]  # type: ignore[attr-defined]
    assert result["status"] == "pass", result["message"]
    assert len(wh.query(project.compiled_test_sql(test_name))) == failures


# at k=5 the gate refuses these rows of release_odd_counts (bad_gate_odd_counts) and publishes the others
REFUSED_COUNTS = {"nan", "plus_infinity", "minus_infinity", "null", "zero", "negative", "fraction_below_k",
                  "beyond_bigint"}


def test_the_generic_test_fails_on_every_count_the_gate_refuses(built: tuple[DbtProject, Warehouse]) -> None:
    """NaN compares above every number (`NaN < k` is false) and infinity is no count of people:
    kanon.k_anonymous fails on exactly the rows the gate refuses (bad_gate_odd_counts' message
    counts the same eight, BAD_INPUTS), by the gate's own condition."""
    project, wh = built
    failing = wh.query(project.compiled_test_sql("k_anonymous__fails_on_what_the_gate_refuses"))
    assert {key for key, _ in failing} == REFUSED_COUNTS
    assert len(failing) == len(REFUSED_COUNTS)
    assert f"{len(REFUSED_COUNTS)} row(s) have people below k=5" in BAD_INPUTS["bad_gate_odd_counts"]


def test_generic_tests_return_keys_and_sizes_only(built: tuple[DbtProject, Warehouse]) -> None:
    """A failing privacy test must not print or store the rows it protects."""
    project, _ = built
    compiled = {
        name: project.compiled_test_sql(name)
        for name in ("k_anonymous__fails_on_thin_and_null_counts", "k_anonymous_records__fails_on_small_groups")
    }
    assert "*" not in compiled["k_anonymous__fails_on_thin_and_null_counts"]
    assert "diagnosis" not in compiled["k_anonymous_records__fails_on_small_groups"]
    assert "*" not in compiled["k_anonymous_records__fails_on_small_groups"].replace("count(*)", "")


BAD_INPUTS = {
    "bad_k_one": "k must be at least 2",
    "bad_k_not_integer": "k must be a whole number, got 2.5",
    "bad_missing_privacy_unit": "privacy_unit column 'patron_token' is not a column of",
    "bad_missing_dimension": "dimension column 'shelf' is not a column of",
    "bad_ladder_too_deep": "asks for level 3 of 'branch', but its hierarchy",
    "bad_ladder_without_hierarchy": "raises 'branch', which has no hierarchy",
    "bad_gate_without_k": "k is required",
    "bad_gate_missing_count_column": "has no column 'patrons' to check against k",
    "bad_gate_null_count": "1 row(s) have people below k=2 or NULL",
    "bad_gate_odd_counts": "(check min_count): 8 row(s) have people below k=5 or NULL, NaN or infinite",
    "bad_k_contradicts_config": "k=2 differs from the model's config k=3",
    "bad_delay_not_mapping": "delay must be a mapping such as {'column': 'loaned_at', 'days': 2}, got",
    "bad_delay_unknown_key": "delay takes column, days and as_of, not 'hours'",
    "bad_delay_negative_days": "delay's days must be a whole number >= 0, got -1",
    "bad_delay_as_of": "delay's as_of must be a date or timestamp as text",
    "bad_delay_missing_column": "delay's column 'loaned_at' is not a column of",
    "bad_delay_privacy_unit": "delay's column 'Patron Id' is the privacy unit",
    "bad_small_change_policy": "on_small_change must be one of 'report', 'hold', 'refuse', got 'freeze'",
    "bad_hold_without_gate": "on_small_change='hold' compares a release with the previous one on the audit trail",
}


def test_bad_input_fails_clearly_and_publishes_nothing(built: tuple[DbtProject, Warehouse]) -> None:
    assert_bad_inputs_refused(*built, "models/release/bad_inputs", "bad", BAD_INPUTS)


def _gate_rows(wh: Warehouse) -> list[tuple[object, ...]]:
    return sorted(wh.query(f"select title, people from {wh.relation('release_gate')}"))


def _leftovers(wh: Warehouse) -> list[tuple[object, ...]]:
    return wh.query(
        f"select table_name from information_schema.tables where table_schema = '{wh.schema}' "
        "and table_name like 'release_gate%' and table_name <> 'release_gate'"
    )


@pytest.mark.parametrize("command", [("run",), ("build",), ("run", "--full-refresh"), ("build", "--full-refresh")])
def test_gate_refuses_thin_cells_and_keeps_previous_release(
    built: tuple[DbtProject, Warehouse], command: tuple[str, ...]
) -> None:
    project, wh = built
    before = _gate_rows(wh)
    assert before and all(people >= 2 for _, people in before)  # type: ignore[operator]

    result = project.run(
        *command, "--select", "release_gate", "--vars", "{release_gate_min_people: 1}", expect_ok=False
    )
    node = result.results["model.kanon_integration_tests.release_gate"]
    assert node["status"] == "error"
    assert "refused to publish" in node["message"]
    assert "1 row(s) have people below k=2" in node["message"]
    assert "Coping" not in result.output  # the error names the count, never the offending cell
    assert _gate_rows(wh) == before
    assert _leftovers(wh) == []


def test_gate_publishes_safe_rows_under_contract(built: tuple[DbtProject, Warehouse]) -> None:
    project, wh = built
    wh.execute(f"delete from {wh.relation('release_gate')}")  # make the republish observable
    project.run("run", "--select", "release_gate")
    assert _gate_rows(wh) == sorted([('"Hello," She Lied', 2), ("Les Misérables", 2), ("Cien años de soledad", 2)])


def test_gate_grants_select_to_readers_on_postgres(make_warehouse) -> None:  # type: ignore[no-untyped-def]
    """Grants land with the release (Postgres: DuckDB has no roles, so this test is Postgres-only)."""
    require_postgres()
    wh = make_warehouse("postgres", "grants")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    role = f"{wh.schema}_reader"
    wh.execute(f'drop role if exists "{role}"')
    wh.execute(f'create role "{role}"')
    try:
        project.run("build", *RELEASE_NODES, "--vars", f"{{release_gate_readers: [{role}]}}")
        granted = wh.query(
            "select privilege_type from information_schema.role_table_grants "
            f"where grantee = '{role}' and table_schema = '{wh.schema}' and table_name = 'release_gate'"
        )
        assert granted == [("SELECT",)]
    finally:
        wh.execute(f'drop owned by "{role}"')
        wh.execute(f'drop role if exists "{role}"')
