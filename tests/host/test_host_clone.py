"""The trail stays private under dbt clone, and dbt unit tests on releases say they are not supported.

A host project installs kanon through packages.yml and grants a reader role SELECT on every model
(`+grants` project-wide, kanon's included) and USAGE on every schema a run builds. `dbt clone
--state` builds each selected node with dbt's own clone materialization, which on Postgres and
DuckDB makes a view over the --state schema's relation with the project's grants, and clone runs
none of kanon's hooks: it used to give the reader the whole trail of the source schema. kanon's
audit models now refuse to be cloned (their own pre-hook), while the host's models and marts
clone as before; the next `dbt run` in the clone's schema creates a private trail of its own, and
replaces a view an earlier clone left where the trail belongs. A dbt unit test on a model calling
a release macro is refused with a message saying so; on a hand-written k_anonymous model it runs.
"""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from support.host_projects import AUDIT_TABLES, COMMENT, MARTS, write_host
from support.projects import DbtProject
from support.warehouses import Warehouse, postgres_role, role_can_select

pytestmark = pytest.mark.dbt

SEEDS = ("host_events", "host_hierarchy_age")
REFUSED = "kanon: refused to clone model.kanon.{table}: it is the private audit trail"


@dataclass
class Cloned:
    """One host project built in `prod`, cloned into `clone` (dbt clone, then dbt run there), and
    built in `earlier`, where an earlier dbt clone had left views over prod's trail."""

    prod: Warehouse
    clone: Warehouse
    earlier: Warehouse
    reader: str
    runs: dict[str, DbtResult]
    path: Path
    # after a run of `runs`: what the clone's schema and its trail schema held, and (Postgres)
    # the trail relations the reader could read
    seen: dict[str, Seen]


@dataclass
class Seen:
    schema: dict[str, str]
    trail: dict[str, str]
    readable: list[str]


def look(wh: Warehouse, clone: Warehouse, reader: str) -> Seen:
    trail = trail_schema(clone)
    return Seen(relations(wh, clone.schema), relations(wh, trail),
                readable_trail(wh, reader, trail) if wh.kind == "postgres" else [])


def trail_schema(wh: Warehouse) -> str:
    return f"{wh.schema}_kanon_audit"


def relations(wh: Warehouse, schema: str) -> dict[str, str]:
    """{name: table type} of what a schema holds (in the prod warehouse's database)."""
    return {str(name): str(kind) for name, kind in wh.query(
        "select table_name, table_type from information_schema.tables "
        f"where table_schema = '{schema}'")}


def readable_trail(wh: Warehouse, reader: str, schema: str) -> list[str]:
    """Postgres: the relations of a trail schema the reader holds a privilege on, or can select
    from (USAGE on the schema given first, so that only the relations' own privileges decide)."""
    wh.execute(f'create schema if not exists "{schema}"')
    wh.execute(f'grant usage on schema "{schema}" to "{reader}"')
    granted = [str(name) for (name,) in wh.query(
        "select table_name from information_schema.role_table_grants "
        f"where grantee = '{reader}' and table_schema = '{schema}'")]
    selectable = [name for name in relations(wh, schema) if role_can_select(wh, reader, f'"{schema}"."{name}"')]
    return sorted(set(granted) | set(selectable))


def project_on(path: Path, wh: Warehouse, name: str, *, artifacts: bool = False) -> DbtProject:
    """The host project against one of the test's schemas, with target and logs of its own."""
    project = DbtProject(path, wh, artifacts=artifacts)
    project.state_dir = wh.workdir / f"{path.name}-{wh.kind}-{name}"
    project.state_dir.mkdir(parents=True, exist_ok=True)
    return project


@pytest.fixture(scope="module")
def cloned(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cloned]:
    prod, clone, earlier = (make_warehouse(warehouse_kind, tag) for tag in ("clone_prod", "clone_to", "clone_old"))
    clone.duckdb_path = earlier.duckdb_path = prod.duckdb_path  # one DuckDB database, three schemas
    with (postgres_role(prod, "reader") if prod.kind == "postgres" else contextlib.nullcontext("reader")) as reader:
        path = tmp_path_factory.mktemp("clone_host") / "host"
        usage = '{% for s in schemas %}grant usage on schema {{ s }} to ' + reader + ';{% endfor %}'
        extra = f'on-run-end:\n  - "{usage}"\n' if prod.kind == "postgres" else ""
        # a pre-hook of the host's own on every model too: hooks add up, and kanon's must stay
        write_host(path, models=f"  +grants:\n    select: ['{reader}']\n  +pre-hook: 'select 1'\n", extra=extra)
        runs: dict[str, DbtResult] = {}
        seen: dict[str, Seen] = {}
        built = project_on(path, prod, "prod", artifacts=True)
        built.run("deps")
        runs["prod"] = built.run("build")
        state = path.parent / "prod_state"
        state.mkdir()
        shutil.copy(built.state_dir / "target" / "manifest.json", state / "manifest.json")

        into = project_on(path, clone, "clone")
        for name, args in (("clone", ("clone", "--state", str(state))), ("clone_run", ("run",)),
                           ("clone_again", ("clone", "--state", str(state), "--full-refresh"))):
            runs[name] = into.run(*args, expect_ok=None)
            seen[name] = look(prod, clone, reader)

        # what dbt clone made of the trail before kanon refused it: views over prod's, granted
        old = trail_schema(earlier)
        earlier.execute(f'create schema "{old}"')
        for table in AUDIT_TABLES:
            earlier.execute(f'create view "{old}"."{table}" as select * from "{trail_schema(prod)}"."{table}"')
            if prod.kind == "postgres":
                earlier.execute(f'grant select on "{old}"."{table}" to "{reader}"')
        runs["earlier_build"] = project_on(path, earlier, "earlier").run("build", expect_ok=None)
        seen["earlier_build"] = look(prod, earlier, reader)
        yield Cloned(prod, clone, earlier, reader, runs, path, seen)


def test_dbt_clone_refuses_the_trail_and_clones_the_rest(cloned: Cloned) -> None:
    clone = cloned.runs["clone"]
    assert clone.returncode == 1
    for table in AUDIT_TABLES:
        assert clone.status(f"model.kanon.{table}") == "error"
        message = clone.results[f"model.kanon.{table}"]["message"]
        assert REFUSED.format(table=table) in message and "Nothing was created" in message
        assert "--exclude package:kanon" in message
    for node in (*MARTS, *SEEDS):
        assert clone.status(node) == "success", node
    # nothing of the trail in the clone's trail schema, not even a view over prod's
    assert cloned.seen["clone"].trail == {}
    assert cloned.seen["clone"].readable == []
    marts = {name: kind for name, kind in cloned.seen["clone"].schema.items() if name in MARTS}
    assert marts == dict.fromkeys(MARTS, "VIEW")


def test_a_cloned_mart_shows_the_published_release_and_the_next_run_releases_its_own(cloned: Cloned) -> None:
    """A k_anonymous mart clones like any model: a view over the published release (the reader's
    grant included); the next dbt run in the clone's schema replaces it with a release of its own,
    gated and on a trail of the clone's schema that holds none of prod's history."""
    run = cloned.runs["clone_run"]
    assert run.ok, run.output[-3000:]
    wh, schema = cloned.prod, cloned.clone.schema
    assert {name: kind for name, kind in cloned.seen["clone_run"].schema.items() if name in MARTS} == \
        dict.fromkeys(MARTS, "BASE TABLE")
    for mart in MARTS:  # the same rows (the seeds are clones of prod's); after clone --full-refresh a view again
        assert sorted(wh.query(f'select * from "{schema}"."{mart}"')) == \
            sorted(wh.query(f'select * from "{cloned.prod.schema}"."{mart}"'))
        if wh.kind == "postgres":
            assert role_can_select(wh, cloned.reader, f'"{schema}"."{mart}"')
    trail = trail_schema(cloned.clone)
    assert cloned.seen["clone_run"].trail == dict.fromkeys(AUDIT_TABLES, "BASE TABLE")
    released = wh.query(f'select distinct invocation_id, report, status from "{trail}"."kanon_audit_releases"')
    assert sorted((str(r), str(s)) for _, r, s in released) == [(m, "RELEASED") for m in MARTS]
    assert {str(i) for i, _, _ in released} == {run.invocation_id}


def test_the_next_run_in_the_clone_schema_grants_the_reader_nothing_of_the_trail(cloned: Cloned) -> None:
    output = cloned.runs["clone_run"].output
    for table in AUDIT_TABLES:  # the host's grants were configured for them, and said not applied
        [warning] = [line for line in output.splitlines() if f"kanon: WARNING: model.kanon.{table}: " in line]
        assert "grants " in warning and "were not applied" in warning
        assert "1 pre-hook(s)" in warning  # the host's: kanon's own guard is not counted
    if cloned.prod.kind != "postgres":
        pytest.skip("DuckDB has no roles: whoever reads the database file reads the trail")
    assert cloned.seen["clone_run"].trail == dict.fromkeys(AUDIT_TABLES, "BASE TABLE")
    assert cloned.seen["clone_run"].readable == []


def test_clone_with_full_refresh_keeps_the_clone_schemas_own_trail(cloned: Cloned) -> None:
    """dbt clone --full-refresh would replace the trail table by a view over prod's (dbt's view
    materialization renames the table aside and drops it): refused, the table and its rows kept."""
    again = cloned.runs["clone_again"]
    for table in AUDIT_TABLES:
        assert again.status(f"model.kanon.{table}") == "error"
        assert REFUSED.format(table=table) in again.results[f"model.kanon.{table}"]["message"]
    wh, trail = cloned.prod, trail_schema(cloned.clone)
    assert cloned.seen["clone_again"].trail == dict.fromkeys(AUDIT_TABLES, "BASE TABLE")
    assert wh.query(f'select count(*) from "{trail}"."kanon_audit_releases"') == [(len(MARTS),)]
    assert cloned.seen["clone_again"].readable == []


def test_views_an_earlier_clone_left_are_replaced_by_a_private_trail(cloned: Cloned) -> None:
    """An earlier dbt clone's views over prod's trail, granted to the reader: the next dbt build in
    that schema drops them (saying so) and creates the trail there, which the reader cannot read."""
    built = cloned.runs["earlier_build"]
    assert cloned.seen["earlier_build"].readable == []
    assert built.ok, built.output[-3000:]
    trail = trail_schema(cloned.earlier)
    [said] = [line for line in built.output.splitlines() if "kanon: WARNING: dropped the view(s) " in line]
    assert all(cloned.earlier.relation(table, "kanon_audit") in said for table in AUDIT_TABLES)
    wh = cloned.prod
    assert cloned.seen["earlier_build"].trail == dict.fromkeys(AUDIT_TABLES, "BASE TABLE")
    for table in AUDIT_TABLES:
        [(comment,)] = wh.query(
            f"select comment from duckdb_tables() where schema_name = '{trail}' and table_name = '{table}'"
            if wh.kind == "duckdb" else f"select obj_description('\"{trail}\".\"{table}\"'::regclass, 'pg_class')")
        assert str(comment).startswith(COMMENT), table
    # its own releases only: none of prod's history came with the views
    released = wh.query(f'select distinct invocation_id from "{trail}"."kanon_audit_releases"')
    assert released == [(built.invocation_id,)]


# --- dbt unit tests -------------------------------------------------------------------------------

UNIT_MODELS = {
    "host_records.sql": """{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_records(relation=ref('host_events'), columns={'age_band': {'role': 'quasi_identifier',
    'hierarchy': ref('host_hierarchy_age')}}, privacy_unit='person') }}
""",
    "host_table.sql": """{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_table(relation=ref('host_events'), privacy_unit='person', dimensions=['age_band'],
    hierarchies={'age_band': ref('host_hierarchy_age')}) }}
""",
    "host_hand.sql": """{{ config(materialized='k_anonymous', k=2) }}
select age_band, count(distinct person) as people from {{ ref('host_events') }}
group by age_band having count(distinct person) >= 2
""",
}
EVENTS_GIVEN = """      - input: ref('host_events')
        rows:
          - {person: p1, age_band: '13-17'}
          - {person: p2, age_band: '13-17'}
          - {person: p3, age_band: '18-24'}
"""
HIERARCHY_GIVEN = """      - input: ref('host_hierarchy_age')
        rows:
          - {level_0: '13-17', level_1: '13-24', level_2: '*'}
          - {level_0: '18-24', level_1: '13-24', level_2: '*'}
"""
RELEASES = {"host_mart_a": "release_counts", "host_records": "release_records", "host_table": "release_table"}


def unit_tests_yml() -> str:
    cases = [f"  - name: ut_{model}\n    model: {model}\n    given:\n{EVENTS_GIVEN}{HIERARCHY_GIVEN}"
             "    expect:\n      rows:\n        - {age_band: '13-24', people: 3}\n" for model in RELEASES]
    cases.append(f"  - name: ut_host_hand\n    model: host_hand\n    given:\n{EVENTS_GIVEN}"
                 "    expect:\n      rows:\n        - {age_band: '13-17', people: 2}\n")
    return "unit_tests:\n" + "".join(cases)


@pytest.fixture(scope="module")
def unit_tested(cloned: Cloned) -> DbtResult:
    """After the clone tests' runs (so that they never see these models): three release models and
    a hand-written one, each with a dbt unit test, tested in prod."""
    for name, text in UNIT_MODELS.items():
        (cloned.path / "models" / name).write_text(text)
    (cloned.path / "models" / "unit_tests.yml").write_text(unit_tests_yml())
    return project_on(cloned.path, cloned.prod, "prod").run("test", "--select", "test_type:unit", expect_ok=False)


def test_unit_tests_on_release_models_are_refused_saying_so(unit_tested: DbtResult) -> None:
    for model, macro in RELEASES.items():
        result = unit_tested.results[f"unit_test.host.{model}.ut_{model}"]
        assert result["status"] == "error", model
        assert (f"kanon.{macro} in unit_test.host.{model}.ut_{model}: dbt unit tests are not supported on models"
                f" that call kanon.{macro}") in result["message"]
        assert "k is required" not in result["message"] and "has no columns" not in result["message"]


def test_a_unit_test_on_a_hand_written_k_anonymous_model_runs(unit_tested: DbtResult) -> None:
    result = unit_tested.results["unit_test.host.host_hand.ut_host_hand"]
    assert result["status"] == "pass", result["message"]
