"""kanon_inspect_records: a role suggested for every column of a table, from aggregates only.

A small host dbt project that installs kanon seeds a people table (an id, a name, an age, a
postal code, a birth date, a diagnosis, a free-text note, NULLs, a column named `Visit Count`, a
unique key with a neutral name, an empty column), then runs the macro with `dbt run-operation`,
on both warehouses. Its whole output is scanned for every value of the seed: none may appear.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult, DbtRunner
from support import ROOT
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

MACRO = "kanon_inspect_records"
FIRST = ["Alice", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas",
         "Kaori", "Lucas", "Maren", "Nikolai", "Olga", "Pavel", "Quentin", "Rosa", "Stefan", "Tamara"]
LAST = ["Moreau", "Lindqvist", "Okafor", "Brandt"]
DIAGNOSES = ["Asthma", "Diabetes type 2", "Hypertension", "Migraine"]
POSTAL = ["ZX3 9QA", "ZX3 4LB", "QW8 2RT", "QW8 7PN", "MV1 5HD"]
MOODS = ["mild", "recurring", "acute", "unusual", "persistent", "seasonal", "nightly", "sporadic", "worsening",
         "improving"]
COLUMNS = ["id", "full_name", "age", "postal_code", "birth_date", "diagnosis", "note", "Visit Count", "record_key",
           "spare"]


def _people() -> list[dict[str, Any]]:
    """40 patients: every column's counts follow from the index (asserted below)."""
    rows = []
    for i in range(40):
        rows.append({
            "id": f"PT-{i + 1:04d}",
            "full_name": f"{FIRST[i % 20]} {LAST[i // 10]}",
            "age": 25 + i % 12,  # 12 ages, each shared
            "postal_code": POSTAL[i % 5],
            "birth_date": f"19{50 + i % 40:02d}-0{1 + i % 9}-1{i % 9}",  # 40 dates
            "diagnosis": None if i % 8 == 0 else DIAGNOSES[i % 4],  # 5 NULL, 4 distinct
            # 4 NULL (i = 3, 13, 23, 33); 27 distinct notes among the other 36
            "note": None if i % 10 == 3 else f"Patient reported {MOODS[i % 10]} symptoms after the visit; "
                                             f"follow-up advised in week {i % 30}",
            "Visit Count": None if i % 5 == 0 else 1 + i % 6,  # 8 NULL, 6 distinct
            "record_key": f"rk-{(i * 7919) % 100000:05x}",  # unique, with a name that says nothing
            "spare": None,
        })
    return rows


PEOPLE = _people()
SEED_TYPES = {name: "varchar" for name in COLUMNS} | {"age": "integer", "Visit Count": "integer",
                                                      "birth_date": "date"}


@pytest.fixture(scope="session")
def records_project(session_workdir: Path) -> Path:
    """A host dbt project with kanon installed and the seed `people` (quoted column names)."""
    project = session_workdir / "records_inspect_project"
    (project / "seeds").mkdir(parents=True)
    (project / "models").mkdir()
    (project / "dbt_project.yml").write_text(
        "name: kanon_records_inspect\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  kanon_records_inspect:\n    +quote_columns: true\n"
        f"    people:\n      +column_types: {json.dumps(SEED_TYPES)}\n"
    )
    (project / "models" / "people_view.sql").write_text("select * from {{ ref('people') }}\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    with (project / "seeds" / "people.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for row in PEOPLE:
            writer.writerow({key: "" if value is None else value for key, value in row.items()})
    deps = DbtRunner(project, env={**os.environ, "DBT_PROFILES_DIR": str(ROOT)},
                     target_path=project / "target", log_path=project / "logs").run("deps")
    assert deps.ok, deps.output
    return project


def _runner(project: Path, wh: Warehouse, logs: str = "logs") -> DbtRunner:
    state = wh.workdir / f"{project.name}-{wh.kind}-{wh.schema}"
    return DbtRunner(project, env=wh.env(), target_path=state / "target", log_path=state / logs)


def inspect(project: Path, wh: Warehouse, args: dict[str, Any], logs: str = "logs") -> DbtResult:
    return _runner(project, wh, logs).run("run-operation", MACRO, "--args", json.dumps(args))


@pytest.fixture(scope="module")
def seeded(warehouse_kind: str, make_warehouse: Any, records_project: Path) -> Warehouse:
    wh = make_warehouse(warehouse_kind, "inspect")
    result = _runner(records_project, wh).run("build")  # the seed, and the view over it
    assert result.ok, result.output[-4000:]
    return wh


@pytest.fixture(scope="module")
def inspected(seeded: Warehouse, records_project: Path) -> tuple[DbtResult, dict[str, Any]]:
    result = inspect(records_project, seeded, {"relation": f"{seeded.schema}.people"}, logs="inspected")
    assert result.ok, result.output[-4000:]
    return result, result.emitted()[-1]


def test_every_column_gets_the_expected_role(inspected: tuple[DbtResult, dict[str, Any]]) -> None:
    _, answer = inspected
    roles = {c["name"]: c["role"] for c in answer["columns"]}
    assert roles == {
        "id": "identifier",  # its name
        "full_name": "identifier",  # its name
        "age": "quasi_identifier",  # its name
        "postal_code": "quasi_identifier",  # its name
        "birth_date": "quasi_identifier",  # a date, unique as it is
        "diagnosis": "quasi_identifier",  # low cardinality
        "note": "keep",  # free text
        "Visit Count": "quasi_identifier",  # low cardinality
        "record_key": "identifier",  # unique-like
        "spare": "keep",  # all NULL
    }
    reasons = {c["name"]: c["reason"] for c in answer["columns"]}
    assert reasons["id"].startswith("its name says 'id'")
    assert reasons["full_name"].startswith("its name says 'name'")
    assert reasons["birth_date"].startswith("a date or time")
    assert reasons["record_key"].startswith("unique-like: 40 distinct of 40 non-null rows")
    assert reasons["diagnosis"].startswith("low cardinality: 4 distinct of 35 non-null rows")
    assert reasons["note"].startswith("free text") and "review it by hand" in reasons["note"]
    assert reasons["spare"].startswith("every value is NULL")
    assert [c["name"] for c in answer["columns"]] == COLUMNS  # in the table's order


def test_the_counts_are_the_seeds(inspected: tuple[DbtResult, dict[str, Any]]) -> None:
    _, answer = inspected
    assert answer["rows"] == 40
    measured = {c["name"]: c for c in answer["columns"]}
    for name in COLUMNS:
        values = [row[name] for row in PEOPLE]
        present = [v for v in values if v is not None]
        column = measured[name]
        assert (column["rows"], column["non_null"], column["nulls"], column["distinct"]) == (
            40, len(present), 40 - len(present), len(set(present))), name
        assert column["null_share"] == pytest.approx((40 - len(present)) / 40, abs=1e-4)
        expected = len(set(present)) / len(present) if present else None
        assert column["uniqueness"] == (pytest.approx(expected, abs=1e-4) if expected is not None else None)
    assert (measured["diagnosis"]["nulls"], measured["Visit Count"]["nulls"]) == (5, 8)
    assert measured["note"]["distinct"] == 27
    assert measured["note"]["avg_length"] > 30 and measured["age"]["avg_length"] is None
    assert answer["thresholds"]["unique_share"] == 0.95


def test_no_value_of_the_data_is_printed(inspected: tuple[DbtResult, dict[str, Any]], seeded: Warehouse) -> None:
    """Aggregates only: not one value of the seed of 3 characters or more, anywhere in dbt's output."""
    result, _ = inspected
    values = {str(value) for row in PEOPLE for value in row.values() if value is not None and len(str(value)) >= 3}
    assert len(values) > 150
    leaked = sorted(value for value in values if value in result.output)
    assert leaked == []
    # the table for a person is there too, one line per column
    assert "suggested role" in result.output and "Visit Count" in result.output


def test_all_columns_are_measured_in_one_query(inspected: tuple[DbtResult, dict[str, Any]], seeded: Warehouse,
                                               records_project: Path) -> None:
    log = (seeded.workdir / f"{records_project.name}-{seeded.kind}-{seeded.schema}" / "inspected" / "dbt.log")
    assert log.read_text().count("as _k_rows") == 1


def test_a_model_or_seed_name_resolves_through_the_graph(seeded: Warehouse, records_project: Path,
                                                         inspected: tuple[DbtResult, dict[str, Any]]) -> None:
    _, by_relation = inspected
    for name in ("people", "people_view"):
        result = inspect(records_project, seeded, {"model": name})
        assert result.ok, result.output[-3000:]
        answer = result.emitted()[-1]
        assert answer["relation"].endswith(f'"{seeded.schema}"."{name}"')
        assert answer["columns"] == by_relation["columns"]


def test_unquoted_names_match_up_to_letter_case_and_quoted_ones_exactly(
    seeded: Warehouse, records_project: Path
) -> None:
    loose = inspect(records_project, seeded, {"relation": f"{seeded.schema.upper()}.PEOPLE"})
    assert loose.ok, loose.output[-3000:]
    assert loose.emitted()[-1]["rows"] == 40
    quoted = inspect(records_project, seeded, {"relation": f'"{seeded.schema}"."PEOPLE"'})
    if seeded.kind == "duckdb":  # DuckDB resolves quoted names case-insensitively too
        assert quoted.ok and quoted.emitted()[-1]["rows"] == 40, quoted.output[-3000:]
    else:  # Postgres: a quoted name is that name exactly
        assert not quoted.ok
        assert quoted.error().startswith("kanon.kanon_inspect_records: no relation ")
        assert f'"{seeded.schema}"."PEOPLE" in the warehouse' in quoted.error()


def test_a_relation_that_does_not_exist_is_one_clear_line(seeded: Warehouse, records_project: Path) -> None:
    result = inspect(records_project, seeded, {"relation": f"{seeded.schema}.no_such_people"})
    assert not result.ok and "Traceback" not in result.output
    line = result.error()
    assert line.startswith("kanon.kanon_inspect_records: no relation ")
    assert f'"{seeded.schema}"."no_such_people" in the warehouse' in line
    assert "model: <name>" in line  # what to do instead
    missing = inspect(records_project, seeded, {"model": "no_such_model"})
    assert missing.error().startswith("kanon.kanon_inspect_records: no model, seed or snapshot named 'no_such_model'")


@pytest.mark.parametrize(
    ("args", "message"),
    [({}, "give exactly one of relation: 'schema.table' or model: <model or seed name>, got neither"),
     ({"relation": "x.people", "model": "people"}, "got both"),
     ({"relation": "a.b.c.d"}, "relation must be a table's name, 'schema.table' or 'database.schema.table'"),
     ({"model": 3}, "model must be the name of a model, seed or snapshot, got 3")],
)
def test_bad_arguments_are_one_line(seeded: Warehouse, records_project: Path, args: dict[str, Any],
                                    message: str) -> None:
    result = inspect(records_project, seeded, args)
    assert not result.ok
    assert result.error().startswith("kanon.kanon_inspect_records: ") and message in result.error()


def test_an_empty_table_suggests_nothing_but_says_why(seeded: Warehouse, records_project: Path) -> None:
    schema = f'"{seeded.schema}"'
    seeded.execute(f"create table {schema}.no_people as select * from {schema}.people where 1 = 0")
    result = inspect(records_project, seeded, {"relation": f"{seeded.schema}.no_people"})
    assert result.ok, result.output[-3000:]
    answer = result.emitted()[-1]
    assert answer["rows"] == 0
    assert {c["role"] for c in answer["columns"]} == {"keep"}
    assert all(c["reason"].startswith("the relation has no rows") and c["uniqueness"] is None
               for c in answer["columns"])


def test_it_only_reads(seeded: Warehouse, records_project: Path) -> None:
    """DuckDB: the file is byte for byte what it was (Postgres: the session is read-only, as for the cli_ macros)."""
    if seeded.kind != "duckdb":
        pytest.skip("the Postgres session is made read-only by kanon._cli_read_only (tests/cli/test_cli.py)")
    before = hashlib.sha256(seeded.duckdb_path.read_bytes()).digest()
    assert inspect(records_project, seeded, {"model": "people"}).ok
    assert hashlib.sha256(seeded.duckdb_path.read_bytes()).digest() == before
