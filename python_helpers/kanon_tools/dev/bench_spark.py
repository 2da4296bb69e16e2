"""`python -m kanon_tools bench-spark` (part of `make bench`): the three release kinds on local Spark.

The targets, on dbt-spark's session method (local[N], the driver's memory as given):
a count release of 20,000 events within 20 s, a record release of 3,000 people within 30 s and a
table with totals of 6 x 4 within 45 s, each the model's own time after the session is up (dbt's
execution time of the node; the Spark session starts before it, when dbt first connects).

The inputs are the other benchmarks' generators at those sizes, written into one scratch DuckDB
file, exported to Parquet and registered in a fresh Spark warehouse (bench.spark_from_duckdb):

  release_thin     kanon.release_counts over the generator's events (the thin report: branch x
                   age band x title, hierarchies as the count benchmark's), `--events` of them
  records_release  kanon.release_records over bench-records' synthetic people (five
                   quasi-identifiers, a 2,000-node lattice, k=5, 4 %), `--people` of them
  table_release    kanon.release_table over bench-table's events, `--rows` x `--columns` leaves

each through the k_anonymous materialization, in its own dbt process, `--repeats` times (the
median is reported), with the statements dbt logged for the last run (on Spark a statement, not a
row, is the unit of cost).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.dev import generate
from kanon_tools.dev.bench import (
    ROOT,
    SPARK_SCHEMA,
    SparkSettings,
    machine,
    project_vars,
    spark_from_duckdb,
    write_project,
)
from kanon_tools.dev.bench_records import load_frames, statements_of_last_run, write_records
from kanon_tools.dev.bench_table import SHAPES


@dataclass(frozen=True)
class Case:
    """One release timed: its model, what it releases, and its target in seconds."""

    model: str
    what: str
    target: float


@dataclass
class Timed:
    case: Case
    seconds: list[float]
    statements: int

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


RELEASE_MODELS = ("release_thin", "records_release", "table_release")


def write_inputs(scratch: Path, events: int, people: int, rows: int, columns: int) -> dict[str, str]:
    """The three releases' inputs in the scratch DuckDB file's main schema; the bench project's vars
    naming them as Spark will (SPARK_SCHEMA.<table>)."""
    for stale in (scratch, Path(f"{scratch}.wal")):
        stale.unlink(missing_ok=True)
    generate.write_duckdb(scratch, "events", events=events, quiet=True)
    write_records("duckdb", people, scratch, "main.records")
    shape = SHAPES["2d"]
    load_frames("duckdb", scratch, shape.tables(rows, columns, "main"))
    return dict(project_vars({"default": f"{SPARK_SCHEMA}.events"}), bench_records=f"{SPARK_SCHEMA}.records",
                **{shape.events_model: f"{SPARK_SCHEMA}.{shape.name}_events"})


def run(args: argparse.Namespace) -> int:
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    settings = SparkSettings(cores=args.cores, memory=args.memory, cluster=args.cluster)
    with settings.started(workdir / "cluster"):
        timed = _time_releases(args, workdir, settings)
    text = markdown(timed, settings, "python -m kanon_tools bench-spark " + " ".join(sys.argv[2:]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 0


def _time_releases(args: argparse.Namespace, workdir: Path, settings: SparkSettings) -> list[Timed]:
    variables = write_inputs(workdir / "inputs.duckdb", args.events, args.people, args.rows, args.columns)
    warehouse, _ = spark_from_duckdb(workdir / "inputs.duckdb", workdir / "spark", settings)
    project = workdir / "project"
    write_project(project)
    env = dict(os.environ, DBT_PROFILES_DIR=str(ROOT), KANON_TARGET=settings.target, KANON_SCHEMA=warehouse.schema,
               KANON_SPARK_DIR=str(warehouse.directory), KANON_SPARK_CORES=str(settings.cores),
               KANON_SPARK_MEMORY=settings.memory, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    log = workdir / "logs"
    runner = DbtRunner(project, env=env, target_path=workdir / "target", log_path=log, timeout=None, process=True)
    runner.run("deps")
    inputs = ("bench_events", "bench_hierarchy_branch", "bench_hierarchy_age_band", "bench_hierarchy_title",
              "bench_records", "bench_records_hierarchy_zip", "bench_records_hierarchy_occupation",
              SHAPES["2d"].events_model)
    setup = runner.run("run", "--select", "package:kanon,path:models/audit", *inputs, "--vars", json.dumps(variables))
    if not setup.ok:
        raise RuntimeError(f"dbt run of the audit trail and the inputs failed:\n{setup.output[-3000:]}")
    cases = (Case("release_thin", f"counts of {args.events:,} events", 20),
             Case("records_release", f"records of {args.people:,} people", 30),
             Case("table_release", f"a {args.rows} x {args.columns} table with totals", 45))
    timed = []
    for case in (case for case in cases if case.model in args.releases):
        seconds = []
        for _ in range(args.repeats):
            result = runner.run("run", "--select", case.model, "--vars", json.dumps(variables))
            if not result.ok:
                raise RuntimeError(f"dbt run of {case.model} failed:\n{result.output[-3000:]}")
            seconds.append(result.execution_times()[case.model])
        timed.append(Timed(case, seconds, statements_of_last_run(log / "dbt.log", case.model)))
        if not args.quiet:
            print(f"[spark] {case.model}: {', '.join(f'{s:.1f}' for s in seconds)} s", flush=True)
    shutil.rmtree(warehouse.directory)  # its metastore, tables and Parquet inputs, as `bench` does
    return timed


def markdown(timed: Sequence[Timed], settings: SparkSettings, command: str) -> str:
    lines = [
        f"# The three release kinds on {'a Spark cluster' if settings.cluster else 'local Spark'}", "",
        f"`{command}` on {machine()}; Spark {settings.describe()}, dbt-spark's session method. Each release "
        "in its own dbt process; seconds are dbt's execution time of the node (the session is up before it), "
        "the median of the runs; statements are those dbt logged for the last run.", "",
        "| release | model | seconds, median (min-max) | statements | target s | met |",
        "|---|---|---|---:|---:|---|",
    ]
    for t in timed:
        lines.append(f"| {t.case.what} | {t.case.model} | {t.median:.1f} ({min(t.seconds):.1f}-{max(t.seconds):.1f}) "
                     f"| {t.statements:,} | {t.case.target:.0f} | {'yes' if t.median <= t.case.target else 'no'} |")
    return "\n".join(lines) + "\n"
