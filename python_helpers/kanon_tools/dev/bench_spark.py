"""`python -m kanon_tools bench-spark` (part of `make bench`): the three release kinds on Spark.

The targets, on dbt-spark's session method (local[N], the driver's memory as given, or a
standalone cluster with `--cluster`): a count release of 20,000 events within 20 s, a record
release of 3,000 people within 30 s and a table with totals of 6 x 4 within 45 s, each the model's
own time after the session is up (dbt's execution time of the node; the Spark session starts
before it, when dbt first connects). At size: a record release within 4 x a plain `create table
as select` of the same people (records_floor, timed when asked for), and the three-way table of
about 100,000 cells, subtotals and totals within 5 minutes.

The inputs are the other benchmarks' generators at those sizes, written into one scratch DuckDB
file, exported to Parquet and registered in a fresh Spark warehouse (bench.spark_from_duckdb):

  release_thin     kanon.release_counts over the generator's events (the thin report: branch x
                   age band x title, hierarchies as the count benchmark's), `--events` of them
  records_floor    a plain `create table as select` of bench-records' synthetic people (the
                   floor of the record release), `--people` of them
  records_release  kanon.release_records over the same people (five quasi-identifiers, a
                   2,000-node lattice, k=5, 4 %)
  table_release    kanon.release_table over bench-table's events, `--rows` x `--columns` leaves
  table3_release   kanon.release_table over bench-table's three-way events (200 areas in
                   districts of 10 x 50 topics x 8 age bands: 101,439 cells, subtotals and totals)

each through the k_anonymous materialization (the floor as a table), in its own dbt process,
`--repeats` times (the median is reported), with the statements dbt logged for the last run (on
Spark a statement, not a row, is the unit of cost). Only the inputs of the releases asked for are
generated.
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
    """One release timed: its model, what it releases, and its target: `target` seconds, or within
    `factor` x the median of the model `floor` (timed before it in the same run); neither: a floor."""

    model: str
    what: str
    target: float | None
    floor: str | None = None
    factor: float = 1.0


@dataclass
class Timed:
    case: Case
    seconds: list[float]
    statements: int

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


RELEASE_MODELS = ("release_thin", "records_floor", "records_release", "table_release", "table3_release")
# what runs unless --releases says otherwise: the three small targets
DEFAULT_RELEASES = ("release_thin", "records_release", "table_release")
# the dbt models each release reads (built once, before any is timed)
INPUTS = {"release_thin": ("bench_events", "bench_hierarchy_branch", "bench_hierarchy_age_band",
                          "bench_hierarchy_title"),
          "records_floor": ("bench_records",),
          "records_release": ("bench_records", "bench_records_hierarchy_zip", "bench_records_hierarchy_occupation"),
          "table_release": (SHAPES["2d"].events_model,),
          "table3_release": (SHAPES["3d"].events_model, f"bench_{SHAPES['3d'].name}_hierarchy_area")}


def write_inputs(scratch: Path, releases: Sequence[str], events: int, people: int, rows: int, columns: int,
                 ) -> dict[str, str]:
    """The inputs of `releases` in the scratch DuckDB file's main schema; the bench project's vars
    naming them as Spark will (SPARK_SCHEMA.<table>)."""
    for stale in (scratch, Path(f"{scratch}.wal")):
        stale.unlink(missing_ok=True)
    variables = dict(project_vars({"default": f"{SPARK_SCHEMA}.events"}))
    if "release_thin" in releases:
        generate.write_duckdb(scratch, "events", events=events, quiet=True)
    if {"records_floor", "records_release"} & set(releases):
        write_records("duckdb", people, scratch, "main.records")
        variables["bench_records"] = f"{SPARK_SCHEMA}.records"
    for model, shape, size in (("table_release", SHAPES["2d"], (rows, columns)),
                               ("table3_release", SHAPES["3d"], (SHAPES["3d"].rows, SHAPES["3d"].columns))):
        if model in releases:
            load_frames("duckdb", scratch, shape.tables(*size, "main"))
            variables[shape.events_model] = f"{SPARK_SCHEMA}.{shape.name}_events"
    return variables


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
    releases = [model for model in RELEASE_MODELS if model in args.releases]  # a floor before its release
    variables = write_inputs(workdir / "inputs.duckdb", releases, args.events, args.people, args.rows, args.columns)
    warehouse, _ = spark_from_duckdb(workdir / "inputs.duckdb", workdir / "spark", settings)
    project = workdir / "project"
    write_project(project)
    env = dict(os.environ, DBT_PROFILES_DIR=str(ROOT), KANON_TARGET=settings.target, KANON_SCHEMA=warehouse.schema,
               KANON_SPARK_DIR=str(warehouse.directory), KANON_SPARK_CORES=str(settings.cores),
               KANON_SPARK_MEMORY=settings.memory, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
    log = workdir / "logs"
    runner = DbtRunner(project, env=env, target_path=workdir / "target", log_path=log, timeout=None, process=True)
    runner.run("deps")
    inputs = sorted({model for release in releases for model in INPUTS[release]})
    setup = runner.run("run", "--select", "package:kanon,path:models/audit", *inputs, "--vars", json.dumps(variables))
    if not setup.ok:
        raise RuntimeError(f"dbt run of the audit trail and the inputs failed:\n{setup.output[-3000:]}")
    three = SHAPES["3d"]
    floored = "records_floor" in releases  # then the record release's target is 4 x its floor, not 30 s
    cases = (Case("release_thin", f"counts of {args.events:,} events", 20),
             Case("records_floor", f"a copy of {args.people:,} people (create table as select)", None),
             Case("records_release", f"records of {args.people:,} people", None if floored else 30,
                  "records_floor" if floored else None, 4),
             Case("table_release", f"a {args.rows} x {args.columns} table with totals", 45),
             Case("table3_release", f"a {three.describe(three.rows, three.columns)} table with subtotals and totals",
                  300))
    timed = []
    for case in (case for case in cases if case.model in releases):
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
    medians = {t.case.model: t.median for t in timed}
    for t in timed:
        target, label = _target(t.case, medians)
        met = "–" if target is None else "yes" if t.median <= target else "no"
        lines.append(f"| {t.case.what} | {t.case.model} | {t.median:.1f} ({min(t.seconds):.1f}-{max(t.seconds):.1f}) "
                     f"| {t.statements:,} | {label} | {met} |")
    return "\n".join(lines) + "\n"


def _target(case: Case, medians: dict[str, float]) -> tuple[float | None, str]:
    """A case's target in seconds and how the report shows it ('–' for a floor)."""
    if case.floor is not None:
        target = case.factor * medians[case.floor]
        return target, f"{target:.0f} ({case.factor:g} x {case.floor})"
    return case.target, "–" if case.target is None else f"{case.target:.0f}"
