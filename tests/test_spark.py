"""kanon on Spark (issue 13, first part): the k_anonymous materialization, its audit trail and a
count release on dbt-spark's session method, from a host project that installs kanon through
packages.yml. On Spark a release goes live by replacing a view over an immutable version table
(ADR 10): a refused release leaves the view and its version as they were.

Spark costs tens of seconds per dbt invocation (a JVM and a metastore start each time), so this
module runs a few invocations and checks several things after each. Under CI=true a Spark that
cannot start fails the module; elsewhere it is skipped with the reason."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import IN_CI, ROOT, DbtResult
from kanon_tools.dbt_runner import DbtRunner

K = 2
# (person, branch, title): labels with an apostrophe, a double quote, a backslash and non-ASCII letters
EVENTS = [
    ("p1", "O'Brien Hall", "Coping With a Parent's Incarceration"),
    ("p2", "O'Brien Hall", '"Hello," She Lied'),
    ("p3", "O'Brien Hall", '"Hello," She Lied'),
    ("p3", "O'Brien Hall", '"Hello," She Lied'),
    ("p4", "Bücherei Süd", "Cien años de soledad"),
    ("p5", "Bücherei Süd", "Cien años de soledad"),
    ("p6", "Bücherei Süd", '"Hello," She Lied'),
    ("p7", None, "Cien años de soledad"),
    ("p8", "Bücherei Süd", "Back\\slash"),
    ("p9", "Bücherei Süd", "Back\\slash"),
]
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
    "sources.yml": """
version: 2
sources:
  - name: raw
    schema: "{{ target.schema }}"
    tables:
      - name: events
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
               KANON_SPARK_DIR=str(workdir / "spark"), DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    values = ", ".join("(" + ", ".join(_literal(v) for v in row) + ")" for row in EVENTS)
    loaded = _sql(workdir / "spark", f"create schema if not exists {schema}",
                  f"create table {schema}.events using parquet as "
                  f"select * from values {values} as t(pid, branch, title)",
                  f"select count(*) from {schema}.events")
    assert loaded[-1] == [[len(EVENTS)]]
    runner = DbtRunner(project, env=env, target_path=workdir / "target", log_path=workdir / "logs")
    assert runner.run("deps").ok
    yield {"runner": runner, "schema": schema, "dir": workdir / "spark", "workdir": workdir, "project": project}


def _literal(value: str | None) -> str:
    if value is None:
        return "cast(null as string)"
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _sql(directory: Path, *statements: str) -> list[list[list[Any]]]:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "spark_sql.py"), str(directory), *statements],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]


def _run(spark: dict[str, Any], *args: str) -> DbtResult:
    return spark["runner"].run(*args)


def _versions(spark: dict[str, Any], tables: list[list[Any]]) -> list[str]:
    return sorted(row[1] for row in tables if str(row[1]).startswith("gate_release__kanon_v"))


def test_a_release_goes_live_as_a_view_and_a_refused_one_changes_nothing(spark: dict[str, Any]) -> None:
    schema, audit = spark["schema"], f"{spark['schema']}_kanon_audit"
    first = _run(spark, "run", "--select", "gate_release")
    assert first.ok, first.output[-4000:]
    tables, views, rows = _sql(spark["dir"], f"show tables in {schema}", f"show views in {schema}",
                               f"select title, people from {schema}.gate_release order by title")
    [version] = _versions(spark, tables)
    assert [row[1] for row in views] == ["gate_release"]
    assert rows == [['"Hello," She Lied', 3], ["Back\\slash", 2], ["Cien años de soledad", 3]]

    refused = _run(spark, "run", "--select", "gate_release", "--vars", '{"min_people": 1}')
    assert not refused.ok and "refused to publish" in refused.output and "min_count" in refused.output
    tables, rows_after, trail = _sql(
        spark["dir"], f"show tables in {schema}", f"select title, people from {schema}.gate_release order by title",
        f"select status, reason from {audit}.kanon_audit_releases where report = 'gate_release' order by released_at")
    assert _versions(spark, tables) == [version]  # the refused release left no version behind
    assert rows_after == rows
    assert [row[0] for row in trail] == ["RELEASED", "REFUSED"]
    assert "below k=2" in trail[1][1]

    again = _run(spark, "run", "--select", "gate_release")
    assert again.ok, again.output[-4000:]
    tables, rows_again = _sql(spark["dir"], f"show tables in {schema}",
                              f"select title, people from {schema}.gate_release order by title")
    [newer] = _versions(spark, tables)
    assert newer != version  # the new version replaced the old, which was dropped
    assert rows_again == rows


def test_a_count_release_on_spark_publishes_what_duckdb_publishes(spark: dict[str, Any]) -> None:
    built = _run(spark, "run", "--select", "counts_table")
    assert built.ok, built.output[-4000:]
    [on_spark] = _sql(spark["dir"], f"select * from {spark['schema']}.counts_table")

    import duckdb

    path = spark["workdir"] / "same.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute("create schema kt_same")
        conn.execute("create table kt_same.events (pid varchar, branch varchar, title varchar)")
        conn.executemany("insert into kt_same.events values (?, ?, ?)", EVENTS)
    env = dict(spark["runner"].env, KANON_TARGET="duckdb", KANON_SCHEMA="kt_same", KANON_DUCKDB_PATH=str(path))
    runner = DbtRunner(spark["project"], env=env, target_path=spark["workdir"] / "target_duckdb",
                       log_path=spark["workdir"] / "logs_duckdb")
    assert runner.run("run", "--select", "counts_table").ok
    with duckdb.connect(str(path)) as conn:
        on_duckdb = [list(row) for row in conn.execute("select * from kt_same.counts_table").fetchall()]
    assert sorted(map(str, on_spark)) == sorted(map(str, on_duckdb))
    assert all(row[-1] >= K for row in on_spark)
