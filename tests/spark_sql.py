"""Runs SQL statements on the tests' Spark warehouse in a process of its own, and prints each
statement's rows as one JSON line: `python tests/spark_sql.py <dir> <statement> ...`.

A process of its own because the metastore is an embedded Derby database, which one process at
a time may open: the test process must not hold it while dbt runs. The session is built as
profiles.yml's spark output builds it (the same metastore and warehouse directory)."""

from __future__ import annotations

import json
import sys

from pyspark.sql import SparkSession


def main(directory: str, statements: list[str]) -> None:
    spark = (SparkSession.builder.master("local[1]").enableHiveSupport()
             .config("spark.sql.warehouse.dir", f"{directory}/warehouse")
             .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                     f"jdbc:derby:;databaseName={directory}/metastore_db;create=true")
             .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={directory}")
             .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        for statement in statements:
            rows = [list(row) for row in spark.sql(statement).collect()]
            print(json.dumps(rows, default=str), flush=True)
    finally:
        spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
