"""Runs SQL statements on a Spark warehouse of profiles.yml's `spark` output in a process of its
own, and prints each statement's rows as one JSON line:

    python -m kanon_tools.spark_sql <dir> <statement> ...

<dir> is what KANON_SPARK_DIR is to profiles.yml: the directory holding the metastore (an
embedded Derby database, metastore_db) and the tables' files (warehouse/). The session is built
as profiles.yml's spark output builds it (`session()`, the one copy of that code): the same
metastore, warehouse directory and derby.system.home; KANON_SPARK_CORES (local[N], default 1)
and KANON_SPARK_MEMORY (driver memory, default 2g) are read from the environment, as there.

A process of its own because embedded Derby lets one process at a time open the metastore: a
Python process must not hold a Spark session while dbt runs. From Python, `run_spark_sql()` runs
this module in a subprocess and returns each statement's rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_CORES = 1
DEFAULT_MEMORY = "2g"


def literal(value: str | None) -> str:
    """A Spark SQL string literal (Spark escapes with backslashes, unlike the SQL standard), or a
    NULL string."""
    if value is None:
        return "cast(null as string)"
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


# The driver's JVM, for a session of many short statements (a release on a small table issues
# hundreds): the client compiler only (C1), the serial collector, and room for the code of the
# classes Spark generates per query. With the JVM's defaults, compiling Spark's generated code
# with C2 took more CPU than the queries ran (JVM threads, three releases of tests/spark/test_spark.py's
# host project on 2 cores: C2 compiler 79 s, C1 20 s, GC 27 s, tasks 25 s; the whole JVM 241-268 s
# CPU for 154-171 s wall; with these 155 s for 152 s). C1 alone with the default code cache
# spent 68 s sweeping it. profiles.yml's spark output sets the same.
JVM_OPTIONS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:ReservedCodeCacheSize=512m"


def session_settings(directory: str | Path, *, cores: int = DEFAULT_CORES,
                     memory: str = DEFAULT_MEMORY) -> dict[str, str]:
    """The Spark settings of profiles.yml's spark output (its server_side_parameters) for a
    warehouse in `directory`."""
    directory = str(directory)
    return {
        "spark.master": f"local[{cores}]",
        "spark.sql.warehouse.dir": f"{directory}/warehouse",
        "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={directory}/metastore_db;create=true",
        "spark.driver.extraJavaOptions": f"-Dderby.system.home={directory} {JVM_OPTIONS}",
        "spark.sql.shuffle.partitions": "4",
        "spark.ui.enabled": "false",
        "spark.driver.memory": memory,
    }


def session(directory: str | Path, *, cores: int = DEFAULT_CORES, memory: str = DEFAULT_MEMORY) -> SparkSession:
    """A Spark session on the warehouse in `directory`, configured as profiles.yml's spark output
    (dbt-spark's session method: SparkSession.builder.enableHiveSupport() plus that output's
    server_side_parameters, session_settings). Where SPARK_REMOTE is set, a Spark Connect client
    of that server instead, as profiles.yml's spark_cluster output: the warehouse, the metastore
    and the JVMs are the server's (kanon_tools.dev.spark_cluster), and `directory` is not read."""
    from pyspark.sql import SparkSession

    remote = os.environ.get("SPARK_REMOTE")
    if remote:
        return SparkSession.builder.remote(remote).getOrCreate()
    builder = SparkSession.builder.enableHiveSupport()
    for name, value in session_settings(directory, cores=cores, memory=memory).items():
        builder = builder.config(name, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def main(directory: str, statements: Sequence[str]) -> None:
    spark = session(directory, cores=int(os.environ.get("KANON_SPARK_CORES", DEFAULT_CORES)),
                    memory=os.environ.get("KANON_SPARK_MEMORY", DEFAULT_MEMORY))
    try:
        for statement in statements:
            rows = [list(row) for row in spark.sql(statement).collect()]
            print(json.dumps(rows, default=str), flush=True)
    finally:
        spark.stop()


def run_spark_sql(directory: str | Path, *statements: str, cores: int = DEFAULT_CORES,
                  memory: str = DEFAULT_MEMORY, timeout: float | None = None) -> list[list[list[Any]]]:
    """Run `statements` on the Spark warehouse in `directory`, in a subprocess (this module), and
    return each statement's rows (lists of JSON values: numbers, strings, null; anything else,
    dates and decimals included, as its str()). Raises RuntimeError, with the end of Spark's
    stderr, when a statement fails."""
    env = {**os.environ, "KANON_SPARK_CORES": str(cores), "KANON_SPARK_MEMORY": memory}
    done = subprocess.run([sys.executable, "-m", "kanon_tools.spark_sql", str(directory), *statements],
                          capture_output=True, text=True, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"spark_sql failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    # Spark and its JVM may print to stdout too: the rows are the lines that are JSON lists
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("[")]
    if len(rows) != len(statements):
        raise RuntimeError(f"spark_sql answered {len(rows)} of {len(statements)} statements:\n{done.stdout[-2000:]}")
    return rows


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
