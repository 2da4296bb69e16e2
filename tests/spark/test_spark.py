"""kanon on Spark (issue 13): the k_anonymous materialization, its audit trail, a count release,
a record release, a table with totals and the generic and hierarchy tests on dbt-spark's session
method, from a host project that installs kanon through packages.yml. On Spark a release goes
live by replacing a view over an immutable version table (ADR 10): a refused release leaves the
view and its version as they were, and a release killed before its view moved leaves the old one
readable.

A Spark session is a JVM and a metastore (embedded Derby: one process at a time may open it), tens
of seconds to start. So the module starts one process, where a process is the point
(tests/spark/spark_first_release.py): it loads the raw tables, makes every model's first release,
releases the table with totals again, and is killed (SIGKILL) in the middle of a count release.
Everything after runs in this worker's process, dbt included (kanon_tools.dbt_runner, ADR 14), on
one Spark session kept for the module, and the tests read the warehouse through that same session.
What Spark publishes and finds is compared with the same project on DuckDB. Under CI=true a Spark
that cannot start fails the module; elsewhere it is skipped with the reason. `make test-spark`
runs it (CI does, after `make test`, which leaves every test marked spark out).

Under KANON_SPARK_CLUSTER=1 (make test-spark-cluster) the same tests run on a standalone cluster
the module starts (kanon_tools.dev.spark_cluster: a master, two workers, a Spark Connect server;
profiles.yml's spark_cluster output) with the keys in its JVMs' environment: dbt, the killed
process and the reads are then clients of one server, and the rows are evaluated in executors."""

from __future__ import annotations

import contextlib
import csv
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult, DbtRunner
from kanon_tools.dev import spark_cluster
from kanon_tools.noise import Ptable, cell_key
from kanon_tools.pseudonym_env import pseudonym
from kanon_tools.spark_sql import literal, session
from oracles import dp
from oracles.counts import Hierarchy, release_counts
from oracles.ptables import ptable_csv, simple_ptable
from support import IN_CI, ROOT

pytestmark = [pytest.mark.dbt, pytest.mark.spark]

K = 2
# make test-spark-cluster: the module on a standalone cluster (the module's docstring)
ON_CLUSTER = os.environ.get("KANON_SPARK_CLUSTER") == "1"
Rows = list[tuple[str | None, ...]]
# (person, branch, title): labels with an apostrophe, a double quote, a backslash, non-ASCII
# letters and control characters (JSON escapes them in the trail's labels: the same text as DuckDB's)
OBRIEN, SUED = "O'Brien\tHall", "Bücherei\x1fSüd"
EVENTS: Rows = [
    ("p1", OBRIEN, "Coping With a Parent's Incarceration"),
    ("p2", OBRIEN, '"Hello," She Lied'),
    ("p3", OBRIEN, '"Hello," She Lied'),
    ("p3", OBRIEN, '"Hello," She Lied'),
    ("p4", SUED, "Cien años de soledad"),
    ("p5", SUED, "Cien años de soledad"),
    ("p6", SUED, '"Hello," She Lied'),
    ("p7", None, "Cien años de soledad"),
    ("p8", SUED, "Back\\slash"),
    ("p9", SUED, "Back\\slash"),
    ("p10", OBRIEN, "Back\\slash"),  # with p1, O'Brien Hall's Self-help reaches k=2 generalized
]
# the titles' hierarchy (level_0 the title as in the events, then its shelf, then the root)
TITLE_HIERARCHY: Rows = [
    ("Coping With a Parent's Incarceration", "Self-help", "*"),
    ('"Hello," She Lied', "Fiction", "*"),
    ("Cien años de soledad", "Fiction", "*"),
    ("Back\\slash", "Self-help", "*"),
]
# every hierarchy test fails on it: a leaf listed twice with two parents, a blank label, two roots
BAD_HIERARCHY: Rows = [("a", "X", "*"), ("a", "Y", "*"), ("b", " ", "*"), ("c", "Z", "other root")]
# people for a record release: (pid, age, zip, sex, diagnosis); a NULL age, a NULL diagnosis,
# a zip its hierarchy lacks, one person with two records
PEOPLE: list[tuple[Any, ...]] = [
    ("p1", 23, "10115", "F", "flu"), ("p2", 27, "10117", "F", "asthma"), ("p3", 25, "10115", "M", "flu"),
    ("p4", 29, "10117", "M", "gout"), ("p5", 34, "10243", "F", "flu"), ("p6", 38, "10245", "F", "asthma"),
    ("p7", 31, "10243", "M", "gout"), ("p8", 36, "10245", "M", None), ("p9", 45, "10115", "F", "flu"),
    ("p10", 47, "10243", "M", "asthma"), ("p11", None, "10117", "F", "gout"), ("p12", 52, "99999", "M", "flu"),
    ("p12", 52, "99999", "M", "gout"), ("p13", 41, "10245", "F", "asthma"),
]
ZIP_HIERARCHY: Rows = [
    ("10115", "101**", "1****", "*"), ("10117", "101**", "1****", "*"),
    ("10243", "102**", "1****", "*"), ("10245", "102**", "1****", "*"),
]
# visits for a table with totals: (visitor, region, kind) with these people per cell (k=3 hides the
# two thin cells, and their lines' totals then need two more hidden)
VISIT_COUNTS = {("Région d'Est", "X"): 5, ("Région d'Est", "Y"): 1, ("Région d'Est", "Z"): 4,
                ("Nord", "X"): 3, ("Nord", "Y"): 6, ("Nord", "Z"): 2,
                ("Süd", "X"): 4, ("Süd", "Y"): 3, ("Süd", "Z"): 5}
VISITS: Rows = [(f"v{region[:2]}{kind}{n}", region, kind) for (region, kind), count in VISIT_COUNTS.items()
                for n in range(count)]
# a hand-written mart's counts (doubles): what the gate refuses at k=5, which kanon.k_anonymous must
# fail on (NaN compares above every number on Spark too), and two it publishes
ODD_COUNTS: list[tuple[Any, ...]] = [
    ("nan", float("nan")), ("plus_infinity", float("inf")), ("minus_infinity", float("-inf")), ("null", None),
    ("zero", 0.0), ("negative", -3.0), ("fraction_below_k", 4.5), ("beyond_bigint", 1e19), ("at_k", 5.0),
    ("a_million", 1e6),
]
# the noisy count release's perturbation table (k = 2: nothing published in 1..1) and keys: the
# JVM of the process that releases reads them from its environment (never from SQL)
NOISE_PTABLE = ptable_csv(simple_ptable(js=K - 1, max_perturbation=2, imax=6))
KEYS = {"KANON_NOISE_KEY": "3c" * 32, "KANON_PSEUDONYM_KEY": "9e" * 32}
TABLES: dict[str, tuple[str, list[tuple[Any, ...]]]] = {
    "events": ("pid, branch, title", EVENTS),
    "title_hierarchy": ("level_0, level_1, level_2", TITLE_HIERARCHY),
    "bad_hierarchy": ("level_0, level_1, level_2", BAD_HIERARCHY),
    "people": ("pid, age, zip, sex, diagnosis", PEOPLE),
    "zip_hierarchy": ("level_0, level_1, level_2, level_3", ZIP_HIERARCHY),
    "visits": ("visitor, region, kind", VISITS),
    "odd_counts": ("cell_key, people", ODD_COUNTS),
    "noise_ptable": ("i, j, v, p, key_from, key_to",
                     [(int(i), int(j), int(v), float(p), int(a), int(b))
                      for i, j, v, p, a, b in (line.split(",") for line in NOISE_PTABLE.splitlines()[1:])]),
}
MODELS = {
    # hand-written behind the gate: var min_people 1 tries to publish one person's title
    "gate_release.sql": f"""
{{{{ config(materialized='k_anonymous', k={K}) }}}}
select title, count(distinct pid) as people
from {{{{ source('raw', 'events') }}}}
group by title
having count(distinct pid) >= {{{{ var('min_people', 2) }}}}
""",
    "counts_table.sql": f"""
{{{{ config(materialized='table') }}}}
{{{{ kanon.release_counts(relation=source('raw', 'events'), privacy_unit='pid',
    dimensions=['branch', 'title'], k={K}) }}}}
""",
    # a count release behind the gate; var gate_k changes its k (the killed release uses 3)
    "counts_gate.sql": """
{{ config(materialized='k_anonymous', k=var('gate_k', 2)) }}
{{ kanon.release_counts(relation=source('raw', 'events'), privacy_unit='pid',
    dimensions=['branch', 'title'], hierarchies={'title': source('raw', 'title_hierarchy')},
    k=var('gate_k', 2)) }}
""",
    # a record release: bins, a hierarchy, suppression, l-diversity, a budget; a shuffle seed with
    # a backslash and quotes, which its release plan records as JSON (a backslash of its own)
    "records_release.sql": """
{{ config(materialized='k_anonymous', k=2, max_suppression=0.2) }}
{{ kanon.release_records(source('raw', 'people'), l=2, privacy_unit='pid',
    shuffle_seed='C:\\\\seed "O\\'Brien"', columns={
    'pid': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50], [20, 40]]},
    'zip': {'role': 'quasi_identifier', 'hierarchy': source('raw', 'zip_hierarchy')},
    'sex': 'quasi_identifier',
    'diagnosis': 'sensitive'}) }}
""",
    # pseudonyms: the same HMAC as on DuckDB, the key read from the JVM's environment
    "records_pseudonym.sql": """
{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_records(source('raw', 'people'), columns={
    'pid': {'role': 'identifier', 'pseudonym': true}, 'age': 'drop', 'zip': 'quasi_identifier', 'sex': 'drop',
    'diagnosis': 'drop'}) }}
""",
    # a count release perturbed by cell key: the same numbers as on DuckDB, and as Python's
    "counts_noisy.sql": """
{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(source('raw', 'events'), privacy_unit='pid', dimensions=['branch', 'title'],
    hierarchies={'title': source('raw', 'title_hierarchy')}, remainder=true,
    noise={'mode': 'cell_key', 'ptable': source('raw', 'noise_ptable')}) }}
""",
    # differential privacy: the shelves (the titles' level 1) noised by a keyed draw, fresh per release
    "counts_dp.sql": """
{{ config(materialized='k_anonymous', k=2) }}
{{ kanon.release_counts(source('raw', 'events'), privacy_unit='pid', dimensions=['title'],
    hierarchies={'title': source('raw', 'title_hierarchy')},
    noise={'mode': 'dp', 'epsilon': 1.0, 'max_cells_per_person': 1, 'budget': {'epsilon': 10},
           'levels': {'title': 1}}) }}
""",
    # a table with totals: thin cells hidden, and more hidden so that no total gives them away
    "table_release.sql": """
{{ config(materialized='k_anonymous', k=3, count_column='visitors') }}
{{ kanon.release_table(source('raw', 'visits'), privacy_unit='visitor', row_dimension='region',
    column_dimension='kind') }}
""",
    "sources.yml": """
version: 2
sources:
  - name: raw
    schema: "{{ target.schema }}"
    tables:
      - name: events
        columns:
          - name: pid
            data_tests: [kanon.privacy_unit_clean]
          - name: title
            data_tests:
              - kanon.hierarchy_covers: {arguments: {hierarchy: "{{ source('raw', 'title_hierarchy') }}"}}
              - kanon.hierarchy_covers:
                  name: title_not_covered_by_bad_hierarchy
                  arguments: {hierarchy: "{{ source('raw', 'bad_hierarchy') }}"}
        data_tests:
          - kanon.k_anonymous_records:
              arguments: {quasi_identifiers: [branch, title], k: 2, privacy_unit: pid}
      - name: title_hierarchy
        data_tests: &hierarchy_tests
          - kanon.hierarchy_leaves_unique
          - kanon.hierarchy_single_parent
          - kanon.hierarchy_single_root
          - kanon.hierarchy_no_blank_labels
      - name: bad_hierarchy
        data_tests: *hierarchy_tests
      - name: people
      - name: zip_hierarchy
      - name: visits
      - name: noise_ptable
      - name: odd_counts
        columns:
          - name: people
            data_tests:
              - kanon.k_anonymous:
                  name: k_anonymous_fails_on_what_the_gate_refuses
                  arguments: {k: 5, key_columns: [cell_key]}
models:
  - name: counts_gate
    columns:
      - name: people
        data_tests:
          - kanon.k_anonymous: {arguments: {k: 2}}
          - kanon.k_anonymous:
              name: counts_gate_not_4_anonymous
              arguments: {k: 4, key_columns: [title]}
""",
}


def _spark_unavailable() -> str | None:
    if importlib.util.find_spec("pyspark") is None or importlib.util.find_spec("dbt.adapters.spark") is None:
        return "pyspark or dbt-spark is not installed"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (Spark needs Java 17)"
    return None


@pytest.fixture(scope="module")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """The host project on a fresh Spark warehouse: its raw tables loaded, every model's first
    release made (FIRST), the table with totals released again (AGAIN) and a counts_gate release
    at k=3 killed before its view moved, in a process of its own; then the module's Spark session,
    in this process, for dbt and the reads."""
    reason = _spark_unavailable()
    if reason:
        if IN_CI:
            pytest.fail(f"{reason}; CI requires the Spark part of the suite", pytrace=False)
        pytest.skip(f"{reason}: skipping the Spark part of the suite")
    workdir = tmp_path_factory.mktemp("spark")
    schema = f"kt_spark_{uuid.uuid4().hex[:8]}"
    project = workdir / "host"
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: host_spark\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    for name, text in MODELS.items():
        (project / "models" / name).write_text(text)
    env = dict(os.environ, DBT_PROFILES_DIR=str(ROOT), KANON_TARGET="spark", KANON_SCHEMA=schema,
               KANON_SPARK_DIR=str(workdir / "spark"), DBT_SEND_ANONYMOUS_USAGE_STATS="false", **KEYS)
    # on a cluster: the keys in its JVMs' environment, where kanon's SQL reads them (on the
    # executors), and nowhere in the SQL; stopped when the module ends, or its setup fails
    with spark_cluster.running(workdir / "cluster", env=KEYS) if ON_CLUSTER else contextlib.nullcontext() as started:
        if started is not None:
            env.update(KANON_TARGET="spark_cluster", SPARK_REMOTE=started.remote)
        yield _first_releases(workdir, schema, project, env)


def _first_releases(workdir: Path, schema: str, project: Path, env: dict[str, str]) -> dict[str, Any]:
    """The raw tables loaded and the first releases made (_first_release_and_a_killed_one); then
    the module's Spark session, in this process."""
    statements = [f"create schema if not exists {schema}"]
    for table, (columns, rows) in TABLES.items():
        types = _column_types(rows)
        values = ", ".join("(" + ", ".join(_spark_value(v, t) for v, t in zip(row, types, strict=True)) + ")"
                           for row in rows)
        statements += [f"create table {schema}.{table} using parquet as select * from values {values} as t({columns})",
                       f"select count(*) from {schema}.{table}"]
    paths = {"target_path": workdir / "target", "log_path": workdir / "logs"}
    in_process = DbtRunner(project, env=env, **paths)
    assert in_process.run("deps").ok
    first, again, loaded, killed = _first_release_and_a_killed_one(workdir, statements, project, in_process)
    assert [result for result in loaded if result] == [[[len(rows)]] for _, rows in TABLES.values()]
    # from here on, one JVM (this process's, or on a cluster one Connect session), shared by dbt
    # (session method) and the tests' reads
    session(workdir / "spark")
    return {"runner": in_process, "schema": schema, "dir": workdir / "spark", "workdir": workdir,
            "project": project, "first": first, "again": again, "killed": killed}


def _first_release_and_a_killed_one(workdir: Path, statements: list[str], project: Path,
                                     runner: DbtRunner) -> tuple[DbtResult, DbtResult, list[Any], dict[str, Any]]:
    """One process, one JVM (tests/spark/spark_first_release.py): the raw tables loaded, every model's
    first release (FIRST), the table with totals again (AGAIN), then a counts_gate release with
    k=3, killed (the process and its Spark, SIGKILL) once its checked version is built and its
    PENDING row is being written, before its view moves. Returns the first release's result, the
    second's, each loading statement's rows, and how the kill went."""
    out = workdir / "first_release.json"
    spec = {"dir": str(workdir / "spark"), "statements": statements, "project": str(project), "env": runner.env,
            "target_path": str(runner.target_path), "log_path": str(workdir / "logs"), "first": list(FIRST),
            "again": ["run", "--select", *AGAIN],
            "killed": ["run", "--select", "counts_gate", "--vars", '{"gate_k": 3}'], "out": str(out)}
    (workdir / "first_release_spec.json").write_text(json.dumps(spec))
    log = workdir / "logs" / "dbt.log"
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("spark_first_release.py")),
                             str(workdir / "first_release_spec.json")], cwd=project, env=runner.env,
                            stdout=subprocess.DEVNULL, stderr=(workdir / "first_release.err").open("w"),
                            start_new_session=True)
    deadline = time.monotonic() + 1200
    done: dict[str, Any] | None = None
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if done is None and out.exists():
                done = json.loads(out.read_text())
            if done is not None:
                with log.open(errors="replace") as f:
                    f.seek(done["log_size"])
                    if any("'PENDING'" in line for line in f):
                        break
            time.sleep(0.05)
        alive = proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    if done is None and out.exists():
        done = json.loads(out.read_text())
    assert done is not None, (workdir / "first_release.err").read_text()[-4000:]
    first, again = (DbtResult(**done[step]) for step in ("first", "again"))
    return first, again, done["loaded"], {"alive_when_killed": alive, "in_time": time.monotonic() < deadline}


def _column_types(rows: list[tuple[Any, ...]]) -> list[str]:
    """Each column's type: double where it holds a float, int where a whole number, else string
    (the same on both warehouses)."""
    def kind(values: list[Any]) -> str:
        if any(isinstance(v, float) for v in values):
            return "double"
        if any(isinstance(v, int) and abs(v) > 2**31 - 1 for v in values):
            return "bigint"
        return "int" if any(isinstance(v, int) for v in values) else "string"

    return [kind([row[i] for row in rows]) for i in range(len(rows[0]))]


def _spark_value(value: Any, type_: str) -> str:
    if type_ in ("int", "bigint"):
        return f"cast(null as {type_})" if value is None else str(int(value))
    if type_ == "double":  # NaN and the infinities have no literal: Spark casts them from text
        text = None if value is None else {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}.get(str(value),
                                                                                                      repr(value))
        return f"cast({literal(text)} as double)"
    return literal(value)


def _sql(directory: Path, *statements: str) -> list[list[list[Any]]]:
    """Each statement's rows, through the module's Spark session (the one dbt uses in this
    process), as kanon_tools.spark_sql gives them: JSON values, anything else as its str()."""
    spark = session(directory)
    return [json.loads(json.dumps([list(row) for row in spark.sql(statement).collect()], default=str))
            for statement in statements]


def _run(spark: dict[str, Any], *args: str) -> DbtResult:
    return spark["runner"].run(*args)


def _versions(spark: dict[str, Any], tables: list[list[Any]]) -> list[str]:
    return sorted(row[1] for row in tables if str(row[1]).startswith("gate_release__kanon_v"))


@pytest.fixture(scope="module")
def duckdb_twin(spark: dict[str, Any]) -> dict[str, Any]:
    """The same host project and tables on DuckDB: what Spark publishes and finds is compared with it."""
    import duckdb

    path = spark["workdir"] / "twin.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("create schema kt_twin")
        for table, (columns, rows) in TABLES.items():
            names = [name.strip() for name in columns.split(",")]
            duckdb_types = {"int": "integer", "bigint": "bigint", "double": "double"}
            types = [duckdb_types.get(t, "varchar") for t in _column_types(rows)]
            typed = ", ".join(f"{n} {t}" for n, t in zip(names, types, strict=True))
            conn.execute(f"create table kt_twin.{table} ({typed})")
            conn.executemany(f"insert into kt_twin.{table} values ({', '.join('?' for _ in names)})", rows)
    env = dict(spark["runner"].env, KANON_TARGET="duckdb", KANON_SCHEMA="kt_twin", KANON_DUCKDB_PATH=str(path))
    runner = DbtRunner(spark["project"], env=env, target_path=spark["workdir"] / "target_duckdb",
                       log_path=spark["workdir"] / "logs_duckdb")
    return {"runner": runner, "path": path}


def _duckdb(twin: dict[str, Any], query: str) -> list[list[Any]]:
    import duckdb

    with duckdb.connect(str(twin["path"])) as conn:
        return [list(row) for row in conn.execute(query).fetchall()]


def _plan_as_compared(plan: str) -> Any:
    """A release plan without what differs between warehouses for the same release: the relations'
    names (their schemas and quoting) and the search's timings."""
    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items()
                    if key not in ("relation", "search_seconds", "scan_seconds")}
        return [strip(item) for item in value] if isinstance(value, list) else value
    return strip(json.loads(plan))


def _same_rows(left: list[list[Any]], right: list[list[Any]]) -> bool:
    return sorted(map(str, left)) == sorted(map(str, right))


# a release's groups and summary row, comparable across warehouses
GROUPS = ("select decision, ladder_step, labels, people from {audit}.kanon_audit_groups "
          "where invocation_id = '{invocation}' and report_unique_id in ({models})")
SUMMARY = ("select report, status, cells_in, cells_passed, cells_generalized, cells_suppressed, rows_released, "
           "people_suppressed, people_in, failed_check from {audit}.kanon_audit_releases "
           "where invocation_id = '{invocation}' and report in ({models})")
RELEASE_PLAN = ("select release_plan from {audit}.kanon_audit_releases where invocation_id = '{invocation}' "
                "and report = '{model}' and status = 'RELEASED'")
# every model's first release, in one dbt invocation
FIRST = ("gate_release", "counts_table", "counts_gate", "records_release", "table_release", "records_pseudonym",
         "counts_noisy", "counts_dp")
# released again right after, in the same process
AGAIN = ("table_release",)


def _ids(*models: str) -> str:
    return ", ".join(f"'model.host_spark.{model}'" for model in models)


def _names(*models: str) -> str:
    return ", ".join(f"'{model}'" for model in models)


@pytest.fixture(scope="module")
def first_run(spark: dict[str, Any], duckdb_twin: dict[str, Any]) -> dict[str, Any]:
    """Every model's first release in one dbt invocation on each warehouse, and what the Spark one
    (and the killed release after it) left, read through the module's session."""
    schema, audit = spark["schema"], f"{spark['schema']}_kanon_audit"
    released = spark["first"]
    assert [released.status(name) for name in FIRST] == ["success"] * len(FIRST), released.output[-4000:]
    twin = duckdb_twin["runner"].run("run", "--select", *FIRST)
    assert twin.ok, twin.output[-4000:]
    searches = ("records_release", "table_release")
    reads = {
        "tables": f"show tables in {schema}",
        "views": f"show views in {schema}",
        "gate_release": f"select title, people from {schema}.gate_release order by title",
        "counts_table": f"select * from {schema}.counts_table",
        "counts_gate": f"select * from {schema}.counts_gate",
        "counts_gate_groups": GROUPS.format(audit=audit, invocation=released.invocation_id, models=_ids("counts_gate")),
        "counts_gate_trail": f"select status, cells_in, cells_passed, cells_generalized, cells_suppressed, "
                             f"rows_released, people_suppressed from {audit}.kanon_audit_releases "
                             f"where report = 'counts_gate' order by released_at",
        "records_release": f"select * from {schema}.records_release",
        "table_release": f"select * from {schema}.table_release",
        "searches_summary": SUMMARY.format(audit=audit, invocation=released.invocation_id, models=_names(*searches)),
        "searches_groups": GROUPS.format(audit=audit, invocation=released.invocation_id, models=_ids(*searches)),
        "scratch_left": f"show tables in {audit} like '_kanon_*'",
        "records_plan": RELEASE_PLAN.format(audit=audit, invocation=released.invocation_id, model="records_release"),
        "counts_gate_view": f"show create table {schema}.counts_gate",
        "records_pseudonym": f"select * from {schema}.records_pseudonym",
        "counts_noisy": f"select * from {schema}.counts_noisy",
        "counts_dp": f"select * from {schema}.counts_dp",
        "counts_dp_plan": RELEASE_PLAN.format(audit=audit, invocation=released.invocation_id, model="counts_dp"),
        "counts_dp_note": f"show tblproperties {schema}.counts_dp ('kanon.noise')",
    }
    answers = _sql(spark["dir"], *reads.values())
    return {"released": released, "twin": twin, **dict(zip(reads, answers, strict=True))}


def test_a_release_goes_live_as_a_view_and_a_refused_one_changes_nothing(
    spark: dict[str, Any], first_run: dict[str, Any],
) -> None:
    schema, audit = spark["schema"], f"{spark['schema']}_kanon_audit"
    [version] = _versions(spark, first_run["tables"])
    # every release behind the gate is a view; counts_table is a plain table
    assert sorted(row[1] for row in first_run["views"]) == ["counts_dp", "counts_gate", "counts_noisy", "gate_release",
                                                            "records_pseudonym", "records_release", "table_release"]
    rows = first_run["gate_release"]
    assert rows == [['"Hello," She Lied', 3], ["Back\\slash", 3], ["Cien años de soledad", 3]]

    refused = _run(spark, "run", "--select", "gate_release", "--vars", '{"min_people": 1}')
    assert not refused.ok and "refused to publish" in refused.output and "min_count" in refused.output
    tables, rows_after, trail = _sql(
        spark["dir"], f"show tables in {schema}", f"select title, people from {schema}.gate_release order by title",
        f"select status, reason from {audit}.kanon_audit_releases where report = 'gate_release' order by released_at")
    assert _versions(spark, tables) == [version]  # the refused release left no version behind
    assert rows_after == rows
    assert [row[0] for row in trail] == ["PENDING", "RELEASED", "REFUSED"]
    assert "below k=2" in trail[2][1]

    again = _run(spark, "run", "--select", "gate_release")
    assert again.ok, again.output[-4000:]
    tables, rows_again = _sql(spark["dir"], f"show tables in {schema}",
                              f"select title, people from {schema}.gate_release order by title")
    [newer] = _versions(spark, tables)
    assert newer != version  # the new version replaced the old, which was dropped
    assert rows_again == rows


def test_a_count_release_on_spark_publishes_what_duckdb_publishes(
    duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    on_spark = first_run["counts_table"]
    # one statement outside the gate: fine for this ladder, and the user is told to use the gate
    assert "kanon.release_counts in model.host_spark.counts_table runs as one statement" in \
        first_run["released"].output
    assert _same_rows(on_spark, _duckdb(duckdb_twin, "select * from kt_twin.counts_table"))
    assert on_spark and all(row[-1] >= K for row in on_spark)


def test_pseudonyms_and_a_noisy_count_release_match_duckdb_and_plain_python(
    duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    # the keys came from the environment of the JVM that released (reflect(getenv)): same HMACs
    assert _same_rows(first_run["records_pseudonym"], _duckdb(duckdb_twin, "select * from kt_twin.records_pseudonym"))
    assert {row[0] for row in first_run["records_pseudonym"]} >= {
        pseudonym(KEYS["KANON_PSEUDONYM_KEY"], pid) for pid in ("p1", "p13")}
    noisy = first_run["counts_noisy"]
    assert _same_rows(noisy, _duckdb(duckdb_twin, "select * from kt_twin.counts_noisy"))
    events = [{"pid": pid, "branch": branch, "title": title} for pid, branch, title in EVENTS]
    release = release_counts(events, "pid", ["branch", "title"], {"title": Hierarchy(TITLE_HIERARCHY)}, k=K,
                             remainder=True)
    table = Ptable.from_records(csv.DictReader(NOISE_PTABLE.splitlines()))
    members = [{events[i]["pid"] for i in release.events_of(n)} for n in range(len(release.rows))]
    expected = [(*row.as_tuple()[:-1], table.published(row.count, cell_key(KEYS["KANON_NOISE_KEY"], people)))
                for row, people in zip(release.rows, members, strict=True)]
    if release.remainder is not None:
        rest = {events[i]["pid"] for i in release.suppressed}
        expected.append((*release.remainder.as_tuple()[:-1],
                         table.published(release.remainder.count, cell_key(KEYS["KANON_NOISE_KEY"], rest))))
    assert _same_rows(noisy, [list(row) for row in expected if row[-1] != 0])


def test_a_dp_release_on_spark_and_on_duckdb_is_plain_python_s_for_its_nonce(
    duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    # each warehouse drew with its own release's nonce: both equal the oracle for that nonce, so
    # the same input, key and release give the same mart on both
    shelves = {leaf: shelf for leaf, shelf, _ in TITLE_HIERARCHY}
    mine: dict[str, list[tuple[str, ...]]] = {}
    for pid, _, title in EVENTS:
        mine.setdefault(str(pid), []).append((str(shelves[str(title)]),))
    counts, _, _ = dp.bounded_counts(mine, [("Fiction",), ("Self-help",)], 1)
    table = dp.table("laplace", 1.0)
    twin_plan = _duckdb(duckdb_twin, RELEASE_PLAN.format(
        audit="kt_twin_kanon_audit", invocation=first_run["twin"].invocation_id, model="counts_dp"))
    for rows, [[plan]] in [(first_run["counts_dp"], first_run["counts_dp_plan"]),
                           (_duckdb(duckdb_twin, "select * from kt_twin.counts_dp"), twin_plan)]:
        nonce = json.loads(plan)["noise"]["nonce"]
        noisy = {cell: n + table.z(dp.draw(KEYS["KANON_NOISE_KEY"], nonce, cell)) for cell, n in counts.items()}
        assert _same_rows(rows, [[shelf, 1, v] for (shelf,), v in noisy.items() if v >= K])
    # the reader's note on the release's view: the mechanism and the standard deviation
    [[*_, note]] = first_run["counts_dp_note"]
    assert str(note).startswith("kanon: differentially private counts (laplace noise, epsilon 1.0 per release")


def test_a_gated_count_release_and_its_trail_match_duckdb_and_a_killed_one_changes_nothing(
    spark: dict[str, Any], duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    schema, audit = spark["schema"], f"{spark['schema']}_kanon_audit"
    rows, groups, trail = first_run["counts_gate"], first_run["counts_gate_groups"], first_run["counts_gate_trail"]
    assert rows and all(row[-1] >= K for row in rows)
    assert _same_rows(rows, _duckdb(duckdb_twin, "select * from kt_twin.counts_gate"))
    twin_groups = GROUPS.format(audit="kt_twin_kanon_audit", invocation=first_run["twin"].invocation_id,
                                models=_ids("counts_gate"))
    assert _same_rows(groups, _duckdb(duckdb_twin, twin_groups))
    # the labels' JSON escapes control characters as Postgres and Python do (\u001f, \t)
    assert all(any(json.dumps(label, ensure_ascii=False) in row[2] for row in groups) for label in (SUED, OBRIEN))
    twin_trail = _duckdb(duckdb_twin, "select status, cells_in, cells_passed, cells_generalized, cells_suppressed, "
                                      "rows_released, people_suppressed from kt_twin_kanon_audit.kanon_audit_releases "
                                      "where report = 'counts_gate'")
    # without a transaction the summary row is written PENDING before the view moves, RELEASED after
    assert [row[0] for row in trail][:2] == ["PENDING", "RELEASED"]
    assert [row[1:] for row in trail[:2]] == [twin_trail[0][1:]] * 2
    assert any(row[0] == "GENERALIZE" for row in groups) and any(row[0] == "SUPPRESS" for row in groups)

    # The release with k=3 killed before its view moved (the fixture's third process): the k=2
    # release, whole, still under the model's name, the view on its one version, and at most a
    # PENDING row of the killed release, never a RELEASED one.
    assert spark["killed"] == {"alive_when_killed": True, "in_time": True}, "the release was not killed mid-way"
    versions = sorted(row[1] for row in first_run["tables"] if str(row[1]).startswith("counts_gate__kanon_v"))
    assert len(versions) == 1 and versions[0] in first_run["counts_gate_view"][0][0]
    assert [row[0] for row in trail][2:] in ([], ["PENDING"])

    again = _run(spark, "run", "--select", "counts_gate", "--vars", '{"gate_k": 3}')
    assert again.ok, again.output[-4000:]
    tables, rows_k3 = _sql(spark["dir"], f"show tables in {schema}", f"select * from {schema}.counts_gate")
    assert rows_k3 and all(row[-1] >= 3 for row in rows_k3) and not _same_rows(rows_k3, rows)
    assert duckdb_twin["runner"].run("run", "--select", "counts_gate", "--vars", '{"gate_k": 3}').ok
    assert _same_rows(rows_k3, _duckdb(duckdb_twin, "select * from kt_twin.counts_gate"))
    # the killed release's leftovers are gone: one version, no intermediate table, no stage left
    # in the private audit schema
    assert [row[1] for row in tables if str(row[1]).startswith("counts_gate_")] == \
        [row[1] for row in tables if str(row[1]).startswith("counts_gate__kanon_v")] != versions
    [stages] = _sql(spark["dir"], f"show tables in {audit} like 'counts_gate__kanon_staging*'")
    assert stages == []


def test_a_record_release_and_a_table_with_totals_match_duckdb_and_leave_no_scratch_table(
    duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    # both searches run in the warehouse on scratch tables (on Spark Parquet tables in the private
    # audit schema, rewritten for every update); the releases go live through the same gate
    records, table = first_run["records_release"], first_run["table_release"]
    summary, groups = first_run["searches_summary"], first_run["searches_groups"]
    assert _same_rows(records, _duckdb(duckdb_twin, "select * from kt_twin.records_release"))
    assert _same_rows(table, _duckdb(duckdb_twin, "select * from kt_twin.table_release"))
    searches = ("records_release", "table_release")
    twin = first_run["twin"].invocation_id
    twin_summary = _duckdb(duckdb_twin, SUMMARY.format(audit="kt_twin_kanon_audit", invocation=twin,
                                                       models=_names(*searches)))
    assert _same_rows([row for row in summary if row[1] == "RELEASED"], twin_summary)
    assert sorted(row[0] for row in summary) == ["records_release", "records_release", "table_release", "table_release"]
    twin_groups = _duckdb(duckdb_twin, GROUPS.format(audit="kt_twin_kanon_audit", invocation=twin,
                                                     models=_ids(*searches)))
    assert _same_rows(groups, twin_groups)
    assert first_run["scratch_left"] == []  # the searches' scratch tables are gone with the releases' stages
    # the release plan reads back as DuckDB's, its seed's backslash and quotes and all (Spark's
    # string literals take backslash escapes: the plan is quoted for the warehouse that reads it)
    [[spark_plan]] = first_run["records_plan"]
    [[twin_plan]] = _duckdb(duckdb_twin, RELEASE_PLAN.format(audit="kt_twin_kanon_audit", invocation=twin,
                                                             model="records_release"))
    assert json.loads(spark_plan)["shuffle_seed"] == 'C:\\seed "O\'Brien"'
    assert _plan_as_compared(spark_plan) == _plan_as_compared(twin_plan)

    # what was published: every class of records (age, zip, sex) at least 2 records and 2
    # diagnoses; the table's thin cells hidden, and more cells with them
    classes: dict[tuple[Any, ...], list[Any]] = {}
    for row in records:
        classes.setdefault(tuple(row[:3]), []).append(row[3])
    assert records and all(len(diagnoses) >= 2 and len(set(diagnoses)) >= 2 for diagnoses in classes.values())
    decisions = sorted(row[0] for row in groups)
    assert decisions.count("PRIMARY") == 2 and decisions.count("SECONDARY") >= 2, groups


def test_a_table_with_totals_released_again_matches_duckdb(
    spark: dict[str, Any], duckdb_twin: dict[str, Any], first_run: dict[str, Any],
) -> None:
    # a second release reads the first (what changed since): as one plan, its staging statement's
    # views expanded into the final select's every read ran a 2 GB Spark driver out of heap.
    # Made in the fixture's process (AGAIN), right after the first.
    again = spark["again"]
    assert again.ok, again.output[-4000:]
    twin = duckdb_twin["runner"].run("run", "--select", *AGAIN)
    assert twin.ok, twin.output[-4000:]
    audit = f"{spark['schema']}_kanon_audit"
    summary_sql = SUMMARY.format(audit=audit, invocation=again.invocation_id, models=_names("table_release"))
    table, summary, left = _sql(spark["dir"], f"select * from {spark['schema']}.table_release", summary_sql,
                                f"show tables in {audit} like '_kanon_*'")
    assert _same_rows(table, _duckdb(duckdb_twin, "select * from kt_twin.table_release"))
    assert sorted(row[1] for row in summary) == ["PENDING", "RELEASED"]
    assert _same_rows([row for row in summary if row[1] == "RELEASED"], _duckdb(duckdb_twin, SUMMARY.format(
        audit="kt_twin_kanon_audit", invocation=twin.invocation_id, models=_names("table_release"))))
    assert left == []


def _test_outcomes(result: Any) -> dict[str, tuple[str, int]]:
    return {key: (item["status"], item["failures"]) for key, item in result.results.items()
            if key.startswith("test.") and item["status"] in ("pass", "fail")}


def test_the_generic_and_hierarchy_tests_find_on_spark_what_they_find_on_duckdb(
    spark: dict[str, Any], duckdb_twin: dict[str, Any],
) -> None:
    # kanon's audit models (the kanon_audit_trail materialization) build over the trail the
    # releases created, and keep every row of it
    trail = f"select count(*) from {spark['schema']}_kanon_audit.kanon_audit_groups"
    [before] = _sql(spark["dir"], trail)
    built = _run(spark, "build", "--select", "package:kanon")
    assert built.ok, built.output[-4000:]
    assert _sql(spark["dir"], trail) == [before] and before[0][0] > 0

    selection = ("test", "--select", "source:raw", "counts_gate")
    on_spark = _run(spark, *selection)
    on_duckdb = duckdb_twin["runner"].run(*selection)
    found = _test_outcomes(on_spark)
    assert len(found) == 15, on_spark.output[-4000:]  # every test ran, and passed or failed
    assert found == _test_outcomes(on_duckdb)
    failing = {key.split(".")[2]: failures for key, (status, failures) in found.items() if status == "fail"}
    assert failing == {
        "kanon_source_hierarchy_leaves_unique_raw_bad_hierarchy_": 1,
        "kanon_source_hierarchy_single_parent_raw_bad_hierarchy_": 1,
        "kanon_source_hierarchy_single_root_raw_bad_hierarchy_": 1,
        "kanon_source_hierarchy_no_blank_labels_raw_bad_hierarchy_": 1,
        "title_not_covered_by_bad_hierarchy": 4,
        "kanon_source_k_anonymous_records_raw_events_2__pid__branch__title": 4,
        "counts_gate_not_4_anonymous": 1,  # the k=3 release's row of 3 people
        # NaN, +/-infinity, NULL, 0, a negative, 4.5 and 1e19: what the gate refuses at k=5
        "k_anonymous_fails_on_what_the_gate_refuses": 8,
    }, on_spark.output[-4000:]


@pytest.mark.parametrize("model", ["counts_gate", "records_release", "table_release"])
def test_dbt_show_on_spark_returns_only_published_rows(spark: dict[str, Any], first_run: dict[str, Any],
                                                       model: str) -> None:
    # what `dbt show` (and a Preview button) runs is the model's SQL outside the materialization:
    # the published rows and columns only, never the long form's groups, facts or persons
    # counts_gate's live release was made at k=3 (the killed release's, run again)
    live_vars = ["--vars", '{"gate_k": 3}'] if model == "counts_gate" else []
    result = _run(spark, "show", "--select", model, "--output", "json", "--limit", "1000", *live_vars)
    assert result.ok, result.output[-3000:]
    assert "_kanon" not in result.output
    preview = json.loads(result.output[result.output.index("{"):result.output.rindex("}") + 1])["show"]
    [mart] = _sql(spark["dir"], f"select * from {spark['schema']}.{model}")
    assert preview and len(preview) == len(mart)
    # JSON previews give whole numbers as floats where agate typed the column as a number
    shown = [[int(v) if isinstance(v, float) and v.is_integer() else v for v in row.values()] for row in preview]
    assert _same_rows(shown, mart)


def test_target_and_logs_on_spark_hold_no_suppressed_group_no_learned_figure_and_no_key(
    spark: dict[str, Any], first_run: dict[str, Any],
) -> None:
    # after the releases and the previews above: each suppressed group's labels as the long form
    # carries them, and the record search's learned figures, are on the private trail only
    audit = f"{spark['schema']}_kanon_audit"
    [groups] = _sql(spark["dir"], f"select labels from {audit}.kanon_audit_groups where decision = 'SUPPRESS'")
    assert groups, "the Spark project leaves suppressed groups"
    tokens = {labels: labels for [labels] in groups}
    tokens.update({json.dumps(labels)[1:-1]: labels for [labels] in groups})
    tokens.update({key: key for key in ('"classes_suppressed"', '"records_out"', '"rescue"')})
    # the pseudonym and noise keys: read from the JVM's environment, never in SQL or a plan
    tokens.update({key: f"the key in {name}" for name, key in KEYS.items()})
    # the previews above compiled the three releases into target/compiled (a compile of its own
    # would run the searches on Spark again: 70 s)
    compiled = list((spark["workdir"] / "target" / "compiled").rglob("*.sql"))
    assert {p.stem for p in compiled} >= {"counts_gate", "records_release", "table_release"}, compiled
    found = [f"{tokens[token]!r} in {path}" for path in (spark["workdir"] / "target").rglob("*") if path.is_file()
             for token in tokens if token in path.read_text(errors="replace")]
    found += [f"{tokens[token]!r} in {path}" for path in (spark["workdir"] / "logs").rglob("*") if path.is_file()
              for token in tokens if token in path.read_text(errors="replace")]
    assert found == []
