"""What a hostile user did to a count release, each case pinned on DuckDB and Postgres.

Fixtures: integration_tests/seeds/hardening and integration_tests/models/hardening. The events
are hand-computed in _hardening_seeds.yml; every expected row below follows from that table.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from support import INTEGRATION, ROOT
from support.cell_fates import cell_fates
from support.projects import DbtProject, copy_project
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

AUDIT = "kanon_audit"
NODES = ("--select", "path:seeds/hardening", "path:models/hardening", "package:kanon,path:models/audit")
PROJECT = "model.kanon_integration_tests"


@pytest.fixture(scope="module")
def built(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse, str]:
    wh = make_warehouse(warehouse_kind, "harden")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    result = project.run("build", *NODES)
    return project, wh, result.output


def _rows(wh: Warehouse, model: str) -> list[tuple[Any, ...]]:
    return sorted(wh.query(f"select * from {wh.relation(model)}"), key=repr)


# the finest cells of each audited release: its events' dimensions, with their people
CELLS = {
    "branch_title": ("hardening_events", ["branch", "title"]),
    "hardening_shelf": ("hardening_events", ["shelf"]),
    "hardening_quoted": ("hardening_events_wide", ['say "hi"']),
}


def _cells(project: DbtProject, model: str, invocation: str | None = None) -> dict[str, tuple[Any, ...]]:
    """Each finest cell's fate in a report's latest release, derived from the audit trail by
    kanon.audit_cell_fates: {cell labels JSON: (people, decision, step)}."""
    wh = project.warehouse
    relation, dims = CELLS.get(model, CELLS["branch_title"])
    columns = ", ".join('"' + d.replace('"', '""') + '"' for d in dims)
    cells = (f"select {columns}, count(distinct person) as people from {wh.relation(relation)} "
             f"where person is not null group by {columns}")
    if relation == "hardening_events_wide":
        cells = cells.replace("person", "pid")
    fates = cell_fates(project, model, cells, invocation)
    return {str(f["cell_labels"]): (f["people"], f["decision"], f["ladder_step"]) for f in fates}


def _release_row(wh: Warehouse, model: str, columns: str) -> tuple[Any, ...]:
    return wh.query(
        f"select {columns} from {wh.relation('kanon_audit_releases', AUDIT)} where report = '{model}' "
        "order by released_at desc limit 1"
    )[0]


# --- 14. measures cannot undo the protection -----------------------------------------------------

DOMINATED = [("X", 0, "F", 1, 9, 208), ("X", 0, "T2", 0, 5, 50)]


@pytest.mark.parametrize("model", ["hardening_dominance_nk", "hardening_dominance_p"])
def test_a_dominated_cell_climbs_the_ladder(built: tuple[DbtProject, Warehouse, str], model: str) -> None:
    """X|T1 has 5 people, but p1 holds 84 of its 88: under (1, 85)-dominance and the 10 % rule it
    is treated as thin and released with X|T3 as X|F (9 people, 84 of 208: neither rule fires)."""
    project, wh, _ = built
    assert _rows(wh, model) == DOMINATED
    cells = _cells(project, model)
    assert cells['{"branch":"X","title":"T1"}'] == (5, "GENERALIZE", 1)
    assert cells['{"branch":"X","title":"T2"}'] == (5, "PASS", 0)


def test_a_past_release_is_replayed_with_the_hierarchy_it_was_made_with(
    warehouse_kind: str, make_warehouse: Any, tmp_path: Path,
) -> None:
    """The audit keeps groups, not cells: a cell's fate in a past release is replayed from the
    trail with the hierarchy as it was then. After T3 moves from F to its own parent G, X|T1
    (dominated) no longer meets T3 at step 1 and is released at step 2 in the new release; the
    old release still says step 1."""
    wh = make_warehouse(warehouse_kind, "replay")
    project_dir = copy_project(INTEGRATION, tmp_path / "kanon_replay")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")  # the copy is elsewhere
    (project_dir / "package-lock.yml").unlink(missing_ok=True)
    project = DbtProject(project_dir, wh)
    project.run("deps")
    model = "hardening_dominance_nk"
    first = project.run("build", "--select", "path:seeds/hardening", model, "package:kanon,path:models/audit")
    before = _cells(project, model)
    assert before['{"branch":"X","title":"T1"}'] == (5, "GENERALIZE", 1)
    seed = project.project_dir / "seeds" / "hardening" / "hardening_hierarchy_title.csv"
    seed.write_text(seed.read_text().replace("T3,F,*", "T3,G,*"))
    project.run("seed", "--select", "hardening_hierarchy_title", "--full-refresh")
    project.run("run", "--select", model)
    after = _cells(project, model)
    assert after['{"branch":"X","title":"T1"}'] == (5, "GENERALIZE", 2)
    assert _cells(project, model, str(first.invocation_id)) == before
    (hashes,) = wh.query(f"select count(distinct content_hash) from {wh.relation('kanon_audit_hierarchies', AUDIT)}")[0]
    assert hashes == 2  # the title hierarchy before and after; nothing else of this release has one


def test_without_a_dominance_rule_the_dominated_cell_passes(built: tuple[DbtProject, Warehouse, str]) -> None:
    """The contrast: X|T1 passes with 88, X|T3 (4 people) is suppressed. The two 1000s of events
    without a person are in no measure: X|T2's amount is 50."""
    _, wh, _ = built
    assert _rows(wh, "hardening_no_dominance") == [("X", 0, "T1", 0, 5, 88), ("X", 0, "T2", 0, 5, 50)]


# --- 8, 9. every event on the record -------------------------------------------------------------

def test_null_policy_suppress_is_on_the_record(built: tuple[DbtProject, Warehouse, str]) -> None:
    """The NULL-branch events (p6, p20) are suppressed up front: an audit cell with a null label
    and SUPPRESS, and their people in people_suppressed with the ladder's (p11..p14)."""
    project, wh, _ = built
    assert _rows(wh, "hardening_null_suppress") == [("X", 0, "T1", 0, 5), ("X", 0, "T2", 0, 5)]
    cells = _cells(project, "hardening_null_suppress")
    assert cells['{"branch":null,"title":"T2"}'] == (2, "SUPPRESS", None)
    assert cells['{"branch":"X","title":"T3"}'] == (4, "SUPPRESS", None)
    assert len(cells) == 4
    assert _release_row(wh, "hardening_null_suppress", "people_suppressed, cells_suppressed") == (6, 2)


def test_events_without_a_person_are_counted_and_warned(built: tuple[DbtProject, Warehouse, str]) -> None:
    _, wh, output = built
    assert "2 event(s) have a NULL privacy unit ('person')" in output
    assert _release_row(wh, "hardening_no_dominance", "events_null_unit") == (2,)


# --- 11. NULL in a dimension without a hierarchy -------------------------------------------------

@pytest.mark.parametrize("model", ["hardening_shelf", "hardening_quoted"])
def test_null_without_a_hierarchy_is_its_root_and_audited_apart_from_a_real_star(
    built: tuple[DbtProject, Warehouse, str], model: str
) -> None:
    """A real '*' is released at level 0, NULL as '*' at level 1 (the README says so); in the
    audit the NULL cell's label is null, never the same as the real '*'. hardening_quoted is the
    same release through a column named say "hi"."""
    project, wh, _ = built
    assert _rows(wh, model) == sorted([("*", 0, 2), ("*", 1, 2), ("A", 0, 3), ("B", 0, 9)], key=repr)
    labels = sorted((json.loads(c) for c in _cells(project, model)), key=repr)
    key = "shelf" if model == "hardening_shelf" else 'say "hi"'
    assert labels == sorted(({key: v} for v in ("*", "A", "B", None)), key=repr)


# --- 6. columns resolved as the warehouse resolves them ------------------------------------------

def test_quoted_column_names_are_released_as_named(built: tuple[DbtProject, Warehouse, str]) -> None:
    _, wh, _ = built
    columns = wh.query(
        "select column_name from information_schema.columns "
        f"where table_schema = '{wh.schema}' and table_name = 'hardening_quoted' order by ordinal_position"
    )
    assert [c for (c,) in columns] == ['say "hi"', 'say "hi"_level', "people"]


def test_pid_and_upper_pid_on_postgres_count_the_column_named(built: tuple[DbtProject, Warehouse, str]) -> None:
    """`pid` is the person and `PID` one value for all: privacy_unit='pid' counts 14 people in X
    (before, the lower-cased lookup took `PID` and counted one)."""
    _, wh, _ = built
    if wh.kind != "postgres":
        pytest.skip("DuckDB folds identifier case, so a table cannot hold both pid and PID")
    assert _rows(wh, "hardening_pid") == [("X", 0, 14)]


# --- 7. the table materialization's steps ---------------------------------------------------------

def test_sql_header_applies_to_the_release_statement(built: tuple[DbtProject, Warehouse, str]) -> None:
    _, wh, _ = built
    assert {probe for (_, _, probe) in _rows(wh, "hardening_sql_header")} == {7}


def test_indexes_are_created(built: tuple[DbtProject, Warehouse, str]) -> None:
    _, wh, _ = built
    if wh.kind == "postgres":
        found = wh.query("select indexdef from pg_indexes "
                         f"where schemaname = '{wh.schema}' and tablename = 'hardening_gate'")
    else:
        found = wh.query("select sql from duckdb_indexes() "
                         f"where schema_name = '{wh.schema}' and table_name = 'hardening_gate'")
    assert len(found) == 1 and "title" in str(found[0][0])


def test_a_users_table_named_like_the_staging_table_is_never_touched(built: tuple[DbtProject, Warehouse, str]) -> None:
    project, wh, _ = built
    default_schema = "public" if wh.kind == "postgres" else "main"
    name = "hardening_gate__kanon_staging"
    places = [f'"{default_schema}"."{name}"', f'"{wh.schema}"."{name}"']
    for place in places:
        wh.execute(f"create table {place} as select 'mine' as owner")
    try:
        project.run("run", "--select", "hardening_gate")
        for place in places:
            assert wh.query(f"select owner from {place}") == [("mine",)], place
    finally:
        for place in places:
            wh.execute(f"drop table if exists {place}")


def test_the_backup_is_gone_before_the_commit(built: tuple[DbtProject, Warehouse, str]) -> None:
    """A post-hook inside the release's transaction (just before the commit) sees no backup of
    the previous release: a kill after the commit cannot leave one behind."""
    project, wh, _ = built
    project.run("run", "--select", "hardening_crash_backup")
    seen = wh.query(f"select backups from {wh.relation('hardening_backup_seen')}")
    assert len(seen) == 2 and all(n == 0 for (n,) in seen)


def test_released_at_is_the_warehouse_clock_with_sub_second_precision(built: tuple[DbtProject, Warehouse, str]) -> None:
    """Two releases of one report, a moment apart, are told apart and ordered (before, both had the
    invocation's start to the second)."""
    project, wh, _ = built
    project.run("run", "--select", "hardening_gate")
    project.run("run", "--select", "hardening_gate")
    times = [t for (t,) in wh.query(
        f"select released_at from {wh.relation('kanon_audit_releases', AUDIT)} "
        "where report = 'hardening_gate' order by released_at desc limit 2")]
    assert times[0] > times[1]
    assert any(t.microsecond != 0 for t in times)


def test_a_view_on_the_mart(built: tuple[DbtProject, Warehouse, str]) -> None:
    """Postgres drops views on the old release with it: the release says so. DuckDB binds views by
    name: the view reads the new release."""
    project, wh, _ = built
    view = f'"{wh.schema}"."hardening_gate_view"'
    wh.execute(f"create view {view} as select * from {wh.relation('hardening_gate')}")
    try:
        result = project.run("run", "--select", "hardening_gate")
        if wh.kind == "postgres":
            assert "1 view(s) depend on" in result.output and "hardening_gate_view" in result.output
        else:
            mart = wh.relation("hardening_gate")
            assert wh.query(f"select count(*) from {view}") == wh.query(f"select count(*) from {mart}")
    finally:
        wh.execute(f"drop view if exists {view}")


# --- 13. a release that publishes (almost) nothing -------------------------------------------------

def test_a_release_that_publishes_nothing_needs_consent(built: tuple[DbtProject, Warehouse, str]) -> None:
    """k above every cell suppresses everything: refused (check output_empty), saying why and how
    to consent, the previous release kept; published with allow_empty_output=true, with a warning."""
    project, wh, _ = built
    before = _rows(wh, "hardening_empty")
    assert before
    huge = "hardening_empty_k: 1000000"
    result = project.run("run", "--select", "hardening_empty", "--vars", f"{{{huge}}}", expect_ok=False)
    message = result.results[f"{PROJECT}.hardening_empty"]["message"]
    # the 16 events of two branches
    assert ("refused to publish model.kanon_integration_tests.hardening_empty (check output_empty): it read 16 input "
            "row(s) and would publish nothing (2 of 2 cell(s) suppressed or hidden at k=1000000)") in message
    assert "set config allow_empty_output=true to publish it" in message and "previous release of" in message
    assert _rows(wh, "hardening_empty") == before
    assert _release_row(wh, "hardening_empty", "status, failed_check") == ("REFUSED", "output_empty")
    consented = project.run("run", "--select", "hardening_empty", "--vars",
                            f"{{{huge}, hardening_allow_empty_output: true}}")
    assert ("hardening_empty publishes nothing (2 of 2 cell(s) suppressed or hidden at k=1000000); the previous "
            "release is replaced by an empty one, as config allow_empty_output=true allows") in consented.output
    assert _rows(wh, "hardening_empty") == []
    assert _release_row(wh, "hardening_empty", "status, rows_released") == ("RELEASED", 0)


def test_max_suppression_refuses_and_keeps_the_previous_release(built: tuple[DbtProject, Warehouse, str]) -> None:
    """At k=5, 6 of the 15 people are suppressed (p6, p20 and p11..p14): 40 % is allowed under
    max_suppression=0.5 (the build) and refused under 0.1."""
    project, wh, _ = built
    before = _rows(wh, "hardening_no_dominance")
    assert _release_row(wh, "hardening_no_dominance", "people_in, people_suppressed") == (15, 6)
    result = project.run("run", "--select", "hardening_no_dominance", "--vars", "{hardening_max_suppression: 0.1}",
                         expect_ok=False)
    message = result.results[f"{PROJECT}.hardening_no_dominance"]["message"]
    assert ("(check suppression_budget): 6 of 15 people (40.0 %) were suppressed, "
            "more than max_suppression=0.1") in message
    assert _rows(wh, "hardening_no_dominance") == before
    assert _release_row(wh, "hardening_no_dominance", "status, failed_check") == ("REFUSED", "suppression_budget")


# --- 9, 16. refused at release time -----------------------------------------------------------------

REFUSALS = {
    "hardening_null_unit_error": "(check null_unit): 2 event(s) have a NULL privacy unit and null_unit='error'",
    "hardening_gate_nan": "(check min_count): 3 row(s) have people below k=2 or NULL, NaN or infinite",
    "hardening_gate_infinite": "(check min_count): 3 row(s) have people below k=2 or NULL, NaN or infinite",
}


def _each_fails_and_publishes_nothing(
    project: DbtProject, wh: Warehouse, folder: str, switch: str, expected: Mapping[str, str | tuple[str, ...]]
) -> None:
    """Runs a folder of models switched on by a var: each fails with its message (or every part
    of it, given a tuple), naming the model, and none of them is published."""
    result = project.run("run", "--select", f"path:models/hardening/{folder}", "--vars", f"{{{switch}: true}}",
                         expect_ok=False)
    for model, message in expected.items():
        node = result.results[f"{PROJECT}.{model}"]
        assert node["status"] == "error", model
        parts = (message,) if isinstance(message, str) else message
        assert all(part in node["message"] for part in parts) and model in node["message"], (model, node["message"])
    published = wh.query(f"select table_name from information_schema.tables where table_schema = '{wh.schema}' "
                         f"and table_name in ({', '.join(repr(m) for m in expected)})")
    assert published == []


def test_refusals_record_why_and_publish_nothing(built: tuple[DbtProject, Warehouse, str]) -> None:
    project, wh, _ = built
    _each_fails_and_publishes_nothing(project, wh, "refusals", "kanon_hardening_refusals", REFUSALS)
    for model, message in REFUSALS.items():
        check = message[len("(check "):message.index(")")]
        assert _release_row(wh, model, "status, failed_check") == ("REFUSED", check)


# --- 5, 6, 14, 16, 17. bad input: a compile error naming the model and the argument --------------

BAD_INPUTS: dict[str, str | tuple[str, ...]] = {
    "bad_count_rows_text": "count_rows must be true or false, got the text 'false'",
    "bad_remainder_text": "remainder must be true or false, got the text 'yes'",
    "bad_warn_missing_text": "warn_missing must be true or false, got the text 'false'",
    "bad_null_policy_case": "null_policy must be one of 'root', 'suppress', got 'Root'",
    "bad_null_unit_value": "null_unit must be one of 'ignore', 'error', got 'skip'",
    "bad_planner_local_text": "kanon.release_planner_settings in model.kanon_integration_tests.bad_planner_local_text: "
                              "local must be true or false",
    "bad_reserved_source_column": "column '_k_pu' of",
    "bad_output_clash": "clashes with 'age_level'",
    "bad_measure_reserved_name": "measure '_kanon_total' starts with _kanon_",
    "bad_measure_reads_unit": "measure 'who' references the privacy unit column 'person'",
    "bad_dimension_is_unit": "dimension 'person' is the privacy unit",
    "bad_count_column_is_dimension": "released column 'branch' (count_column) clashes with 'branch' (dimension)",
    "bad_k_too_big": "k must be at most 2147483647",
    "bad_k_float": "k must be a whole number, got 5.0",
    "bad_hierarchy_blank": "1 row(s) with a NULL or blank label",
    "bad_hierarchy_two_parents": "1 label(s) with more than one parent",
    # T1 -> T2 and T2 -> T1: each kind refuses it naming itself, the hierarchy and the dimension
    **{
        f"bad_hierarchy_collide_{kind}": (
            f"kanon.release_{kind} in {PROJECT}.bad_hierarchy_collide_{kind}: hierarchy ",
            """hardening_hierarchy_collide" for dimension 'title' is not a valid hierarchy (0 leaf value(s) listed """
            "more than once, 1 distinct root(s) where exactly 1 is required, 0 row(s) with a NULL or blank label, "
            "0 label(s) with more than one parent, 2 label(s) standing for different leaves at two levels)",
        )
        for kind in ("counts", "records", "table")
    },
    # a date's labels write its year in four digits: 12345-01-05's day would be 1234-01-05
    "bad_records_date_far_year": "quasi-identifier 'visit_date' has 1 value(s) outside the years 1 to 9999",
    "bad_null_unit_error_table":
        "2 event(s) have a NULL privacy unit ('person'); null_unit='error' refuses the release",
    "bad_dominance_n": "dominance's n must be 1 or 2, got 3",
    "bad_gate_text_count": "count_column 'people' is of type",
    "bad_max_suppression_hand_written": "max_suppression needs a kanon.release_counts or kanon.release_records model",
    "bad_max_suppression_text": "max_suppression must be a share from 0 to 1",
    "bad_relation_text":
        "relation must be a relation such as ref('my_events') or source('app', 'events'), got the text",
    "bad_hierarchy_text": "the hierarchy of 'title' must be a relation such as ref('my_events')",
    "bad_kind_unknown": "unknown release kind 'microdata' in config kanon_release_kind",
    "bad_kind_without_long_form": "is configured as a 'counts' release but its SQL does not carry the long form",
    "bad_kind_marker_by_hand": "has a column _kanon_row, which kanon reserves for the long form",
}


def test_bad_input_fails_clearly_and_publishes_nothing(built: tuple[DbtProject, Warehouse, str]) -> None:
    project, wh, _ = built
    expected = dict(BAD_INPUTS)
    if wh.kind == "postgres":
        expected["bad_pid_ambiguous"] = "privacy_unit column 'Pid' is ambiguous"
    _each_fails_and_publishes_nothing(project, wh, "bad_inputs", "kanon_bad_inputs", expected)
    # nor a staging or scratch table of one (records and tables with totals stage theirs)
    assert wh.query("select table_name from information_schema.tables "
                    f"where table_schema = '{wh.schema}' and table_name like 'bad%'") == []


# --- 12. the policy fingerprint covers the whole policy --------------------------------------------

def test_the_policy_fingerprint_covers_everything_that_changes_the_release(
    built: tuple[DbtProject, Warehouse, str],
) -> None:
    """Each fp_* model differs from fp_base in one part of the policy (fp_same_as_base spells
    the same policy out): the fingerprints the trail recorded, released or refused, say so."""
    project, wh, _ = built
    project.run("run", "--select", "path:models/hardening/fingerprint", "--vars", "{kanon_fingerprints: true}",
                expect_ok=None)  # fp_null_unit and fp_max_suppression are refused, with their policy on record
    found = dict(wh.query(f"select report, policy_fingerprint from {wh.relation('kanon_audit_releases', AUDIT)} "
                          "where report like 'fp%'"))
    assert len(found) == 10 and all(re.fullmatch("[0-9a-f]{32}", str(f)) for f in found.values()), found
    assert found.pop("fp_same_as_base") == found["fp_base"]
    assert len(set(found.values())) == len(found), found


# --- 17. grants where a warehouse has no roles ------------------------------------------------------

def test_grants_on_duckdb_are_not_silently_ignored(built: tuple[DbtProject, Warehouse, str]) -> None:
    """DuckDB has no roles: the release says the grants were not applied. On Postgres they are
    applied to a real role, and nothing is said."""
    project, wh, _ = built
    role = f"{wh.schema}_reader"
    if wh.kind == "postgres":
        wh.execute(f'drop role if exists "{role}"')
        wh.execute(f'create role "{role}"')
    try:
        result = project.run("run", "--select", "hardening_gate", "--vars", f"{{hardening_readers: [{role}]}}")
        warned = "are not applied: DuckDB has no roles" in result.output
        if wh.kind == "duckdb":
            assert warned
        else:
            assert not warned
            assert wh.query(
                "select privilege_type from information_schema.role_table_grants "
                f"where grantee = '{role}' and table_schema = '{wh.schema}' and table_name = 'hardening_gate'"
            ) == [("SELECT",)]
    finally:
        if wh.kind == "postgres":
            wh.execute(f'drop owned by "{role}"')
            wh.execute(f'drop role if exists "{role}"')
