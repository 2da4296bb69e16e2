"""The Spark module's process (tests/spark/test_spark.py): one JVM for what must happen outside the test's
process, in order, on one Spark session:

1. the raw tables are loaded (each statement's rows written back);
2. every model's first release, one dbt invocation (its DbtResult written back);
3. the releases made again that the test reads (`again`: dbt's arguments; its DbtResult written
   back): here, where the JVM is as it is for the first, rather than in the test's process;
4. a second release, which the test kills (SIGKILL) before its view moves.

    python tests/spark/spark_first_release.py <spec.json>

spec: {"dir", "statements", "project", "env", "target_path", "log_path", "first": [models],
"again": [dbt args], "killed": [dbt args], "out": path}. `out` gets one JSON object once steps 1
to 3 are done, with the size of dbt's log at that moment: what the log holds past it is step 4's."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.spark_sql import session


def main(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    spark = session(spec["dir"])  # dbt-spark's session method takes this one (getOrCreate)
    loaded = [json.loads(json.dumps([list(row) for row in spark.sql(statement).collect()], default=str))
              for statement in spec["statements"]]
    runner = DbtRunner(Path(spec["project"]), env=spec["env"], target_path=Path(spec["target_path"]),
                       log_path=Path(spec["log_path"]))
    first = runner.run("run", "--select", *spec["first"])
    again = runner.run(*spec["again"])
    log = Path(spec["log_path"]) / "dbt.log"
    done = {"loaded": loaded, "first": dataclasses.asdict(first), "again": dataclasses.asdict(again),
            "log_size": log.stat().st_size if log.exists() else 0}
    partial = Path(spec["out"]).with_suffix(".partial")
    partial.write_text(json.dumps(done))
    partial.replace(spec["out"])
    runner.run(*spec["killed"])  # killed by the test while it runs


if __name__ == "__main__":
    main(sys.argv[1])
