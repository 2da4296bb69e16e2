"""The Spark standalone cluster (kanon_tools.dev.spark_cluster, `make spark-cluster`) and what a
cluster changes for a release: the rows are evaluated by executor JVMs that share neither the
driver's memory nor its environment (issue 47). `make test-spark-cluster` runs this module and
tests/spark/test_spark.py on a cluster (KANON_SPARK_CLUSTER=1); `make test` leaves it out with
every Spark test, and any other run skips it, saying so.

- The command starts a master, two workers and a Spark Connect server, whose queries run in two
  executor JVMs other than the driver's, reports them, and stops every process it started.
- A pseudonym key only the driver has (the Connect server's environment, not the workers') refuses
  the release with kanon's message naming the variable, publishes nothing, and never shows the key;
  the same release under a key every JVM has publishes the keyed hashes Python computes.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.cli import main as cli
from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.dev import spark_cluster
from kanon_tools.pseudonym_env import pseudonym
from kanon_tools.spark_sql import session
from support import ROOT

# only `make test-spark-cluster` (CI's too) has a cluster to test: elsewhere the module says so
pytestmark = [pytest.mark.dbt, pytest.mark.spark,
              pytest.mark.skipif(os.environ.get("KANON_SPARK_CLUSTER") != "1",
                                 reason="the cluster tests run under make test-spark-cluster (KANON_SPARK_CLUSTER=1)")]

# in every JVM of the cluster; and one in the driver's (the Connect server's) environment only
KEYS = {"KANON_PSEUDONYM_KEY": "7d" * 32}
DRIVER_ONLY = {"KANON_DRIVER_ONLY_KEY": "5a" * 32}
PEOPLE = [("p1", "10115"), ("p2", "10115"), ("p3", "10117"), ("p4", "10117"), ("p5", "10117")]
MODEL = """
{{{{ config(materialized='k_anonymous', k=2) }}}}
{{{{ kanon.release_records(source('raw', 'people'), pseudonym_key_env='{key_env}', columns={{
    'pid': {{'role': 'identifier', 'pseudonym': true}}, 'zip': 'quasi_identifier'}}) }}}}
"""


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    workdir = tmp_path_factory.mktemp("spark_cluster")
    with spark_cluster.running(workdir / "cluster", env=KEYS, driver_env=DRIVER_ONLY) as started:
        schema = f"kt_cluster_{uuid.uuid4().hex[:8]}"
        values = ", ".join(f"('{pid}', '{zip_}')" for pid, zip_ in PEOPLE)
        spark = session(workdir)
        spark.sql(f"create schema {schema}")
        spark.sql(f"create table {schema}.people using parquet as select * from values {values} as t(pid, zip)")
        project = workdir / "host"
        (project / "models").mkdir(parents=True)
        (project / "dbt_project.yml").write_text("name: host_cluster\nversion: '1.0'\nconfig-version: 2\n"
                                                 "profile: kanon\n")
        (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
        (project / "models" / "sources.yml").write_text(
            "version: 2\nsources:\n  - name: raw\n    schema: \"{{ target.schema }}\"\n    tables:\n"
            "      - name: people\n")
        for name, key_env in (("with_cluster_key", "KANON_PSEUDONYM_KEY"), ("with_driver_only_key",
                                                                             "KANON_DRIVER_ONLY_KEY")):
            (project / "models" / f"{name}.sql").write_text(MODEL.format(key_env=key_env))
        env = dict(os.environ, DBT_PROFILES_DIR=str(ROOT), KANON_TARGET="spark_cluster", KANON_SCHEMA=schema,
                   SPARK_REMOTE=started.remote, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
        runner = DbtRunner(project, env=env, target_path=workdir / "target", log_path=workdir / "logs")
        assert runner.run("deps").ok
        yield {"cluster": started, "schema": schema, "runner": runner, "spark": spark}


def test_the_rows_are_evaluated_by_two_executor_jvms_other_than_the_driver(cluster: dict[str, Any]) -> None:
    spark, started = cluster["spark"], cluster["cluster"]
    assert set(started.pids) == {"master", "worker1", "worker2", "connect"}
    assert all(spark_cluster.alive(pid) for pid in started.pids.values())
    jvms = spark_cluster.executor_jvms(spark)
    # the driver is the Connect server's JVM: the executors are two other processes
    assert len(jvms) == spark_cluster.WORKERS
    assert str(started.pids["connect"]) not in jvms


def test_a_key_only_the_driver_has_refuses_the_release_and_publishes_nothing(cluster: dict[str, Any]) -> None:
    result = cluster["runner"].run("run", "--select", "with_driver_only_key")
    assert not result.ok
    assert "KANON_DRIVER_ONLY_KEY" in result.output, result.output[-3000:]
    assert "no usable key" in result.output or "no pseudonym key" in result.output, result.output[-3000:]
    assert DRIVER_ONLY["KANON_DRIVER_ONLY_KEY"] not in result.output
    tables = cluster["spark"].sql(f"show tables in {cluster['schema']} like 'with_driver_only_key*'").collect()
    assert tables == []


def test_a_key_every_jvm_has_gives_python_s_pseudonyms(cluster: dict[str, Any]) -> None:
    result = cluster["runner"].run("run", "--select", "with_cluster_key")
    assert result.ok, result.output[-3000:]
    rows = cluster["spark"].sql(f"select pid, zip from {cluster['schema']}.with_cluster_key").collect()
    expected = {(pseudonym(KEYS["KANON_PSEUDONYM_KEY"], pid), zip_) for pid, zip_ in PEOPLE}
    assert {tuple(row) for row in rows} == expected
    assert KEYS["KANON_PSEUDONYM_KEY"] not in result.output


def test_the_command_starts_reports_and_stops_a_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = tmp_path / "cluster"
    assert cli(["spark-cluster", "start", "--dir", str(directory)]) == 0
    started = spark_cluster.Cluster.load(directory.resolve())
    assert started is not None
    port = int(started.remote.rsplit(":", 1)[1])
    try:
        assert f"export SPARK_REMOTE={started.remote}" in capsys.readouterr().out
        assert cli(["spark-cluster", "status", "--dir", str(directory)]) == 0
        assert spark_cluster.listening(port)
        with pytest.raises(RuntimeError, match="stop it first"):
            spark_cluster.start(directory)
    finally:
        assert cli(["spark-cluster", "stop", "--dir", str(directory)]) == 0
    assert "stopped: connect, worker1, worker2, master" in capsys.readouterr().out
    assert not any(spark_cluster.alive(pid) for pid in started.pids.values())
    assert not spark_cluster.listening(port)
    assert not (directory / "cluster.json").exists()
    assert cli(["spark-cluster", "status", "--dir", str(directory)]) == 1
