"""`python -m kanon_tools bench` (`make bench`): what a release costs against the bare aggregate.

For each warehouse and size it generates circulation events with the generator (once with its
default profile, once with its `thinner` one), then builds, through dbt, the bench project
(bench_project/, real model files; copied into the scratch folder with a packages.yml that
installs kanon from this checkout; the generated relations and k reach it as dbt vars):

  floor_<report>     the bare aggregate: count(distinct patron_token) grouped by the report's
                     dimensions, materialized as a table;
  release_<report>   the kanon release of the same report through the k_anonymous
                     materialization (default ladder; audit trail included);
  engine_<report>    the same release_counts call as a plain table: the engine alone, without
                     the gate, the audit trail and the swap;
  recount_<report>   (thin-heavy reports only) the floor plus one more distinct pass over the
                     events of the thin cells: the honest floor of a release that must recount;

for three reports: `thin` (branch x age band x title, most finest cells below k), `thinner` (the
same dimensions over the generator's `thinner` profile: ~97% of ~5.9M finest cells below k at 10M
events, the issue's target workload) and `dense` (branch x age band x subject, few below k). Each
model runs in its own dbt invocation, `repeats` times; the time is dbt's own execution time of
the node (run_results.json, no dbt start-up), the memory the dbt process's peak RSS (DuckDB runs
inside it; on Postgres it is the client only; on Spark the dbt Python process without its JVM).

Spark (`--spark-sizes`, only when asked) runs through profiles.yml's spark target: dbt-spark's
session method, local[N] in a JVM the dbt process starts, an embedded Derby metastore and the
tables' files in one directory per size (KANON_SPARK_DIR). The generator writes into a scratch
DuckDB file, which DuckDB exports to Parquet (each events table and its hierarchies); Spark
registers them as tables over those files. Derby lets one process at a time open the metastore,
so whatever this module reads on Spark it reads between dbt invocations, through spark_sql
subprocesses (`kanon_tools.spark_sql`), each one Spark start (tens of seconds). On Spark only
floor_ and release_ are timed unless `--spark-engine` asks for engine_ and recount_ too, and the
Python baseline is not run.

After the last release of each report it measures what that release added to the audit trail:
rows carrying its invocation_id in each kanon_audit_* table, and bytes (the growth of those
tables: pg_total_relation_size on Postgres, storage blocks on DuckDB).

It also times the approach of the problem statement: the grouped counts pulled out of the
warehouse and generalized and suppressed in Python (fetch included), which adds up counts of
people that do not add up.

Results go to a Markdown file (BENCHMARKS.md) and a PNG plot of time against size.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import sys
import time
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kanon_tools.dbt_runner import DbtResult, DbtRunner
from kanon_tools.dev import generate, spark_cluster
from kanon_tools.spark_sql import literal as spark_literal
from kanon_tools.spark_sql import run_spark_sql
from kanon_tools.warehouse import connect, quote_ident

ROOT = Path(__file__).resolve().parents[3]
BENCH_PROJECT = Path(__file__).resolve().parent / "bench_project"
K = 5
REPORTS = {
    "thin": ("branch", "age_band", "title"),
    "thinner": ("branch", "age_band", "title"),
    "dense": ("branch", "age_band", "subject"),
}
RECOUNTED = ("thin", "thinner")  # the thin-heavy reports, with a recount_<report> model
# The events table the generator writes for each of its profiles (hierarchies: <table>_hierarchy_*).
PROFILE_TABLES = {"default": "events", "thinner": "events_thinner"}
# Built once per size before the timed models: the events' views and the dense report's inputs.
INPUT_MODELS = ("bench_events", "bench_events_thinner", "bench_hierarchy_title", "bench_hierarchy_title_thinner",
                "bench_hierarchy_branch", "bench_hierarchy_age_band", "bench_events_subject",
                "bench_hierarchy_subject")
PG_SCHEMA = "kanon_bench"
SPARK_SCHEMA = "kanon_bench"  # the Parquet inputs' schema on Spark (dbt builds in <schema>_out)
WAREHOUSES = (("duckdb", "o"), ("postgres", "s"), ("spark", "^"))  # the order of the report, and plot markers
NOTES_MARKER = "<!-- notes: everything below this line is kept when make bench rewrites the file -->"


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size % 1_000_000 == 0 else f"{size // 1_000}k" if size % 1_000 == 0 else str(size)


# --- the bench dbt project ------------------------------------------------------------------------

def write_project(path: Path) -> None:
    """A copy of bench_project/ at `path` that installs kanon from this checkout.

    The models are the repository's files; only packages.yml is written here, since it names the
    checkout by its absolute path."""
    if path.exists():
        shutil.rmtree(path)
    shutil.copytree(BENCH_PROJECT, path, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages",
                                                                        "packages.yml", "package-lock.yml"))
    (path / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")


def project_vars(events: Mapping[str, str]) -> dict[str, Any]:
    """The bench project's vars: k, and the relations the generator wrote for each profile."""
    out: dict[str, Any] = {"bench_k": K}
    for profile, relation in events.items():
        suffix = "" if profile == "default" else f"_{profile}"
        out[f"bench_events{suffix}"] = relation
        out[f"bench_hierarchy{suffix}"] = f"{relation}_hierarchy_"
    return out


# --- running and measuring -----------------------------------------------------------------------

@dataclass
class Timing:
    seconds: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class Trail:
    """What one release added to the audit trail: rows per kanon_audit_* table, and bytes."""

    rows: dict[str, int]
    bytes: int | None  # None: the warehouse could not say

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())


class DbtFailed(RuntimeError):
    """A dbt invocation of the benchmark that failed: the model it ran (else its command), dbt's
    error in one line (`message`), and the end of its output (the exception's text)."""

    def __init__(self, args: Sequence[str], result: DbtResult) -> None:
        super().__init__(f"dbt {' '.join(args)} failed:\n{result.output[-4000:]}")
        selected = list(args[args.index("--select") + 1:args.index("--select") + 2]) if "--select" in args else []
        self.model = selected[0] if selected else " ".join(args[:1])
        self.message = _error_text(result, self.model)


def _error_text(result: DbtResult, model: str) -> str:
    """The model's error in one line: its message in run_results.json (else the block dbt printed
    under "Error in model"), less Java stack frames and blank lines, at most 400 characters."""
    item = result.results.get(model)
    text = str(item.get("message") or "") if item and item.get("status") == "error" else ""
    if not text:
        lines = [re.sub(r"^(\x1b\[[0-9;]*m)*(\d\d:\d\d:\d\d(\.\d+)?\s+)?", "", line)
                 for line in result.output.splitlines()]
        starts = [i for i, line in enumerate(lines) if "Error in model" in line]
        block: list[str] = []
        for line in lines[starts[-1] + 1:] if starts else []:
            if not line.strip() or "compiled code at" in line:
                if block:
                    break
                continue
            block.append(line)
        text = "\n".join(block)
    kept = [line.strip() for line in text.splitlines()
            if line.strip() and not line.strip().startswith(("at ", "... ")) and "Error in model" not in line]
    one = " ".join(kept) or result.error()
    return one if len(one) <= 400 else one[:399] + "…"


@dataclass
class Failure:
    """A report whose model failed on Spark: the run went on without it."""

    warehouse: str
    size: int
    report: str
    model: str
    message: str
    setting: str = ""


@dataclass
class Bench:
    workdir: Path
    env: dict[str, str]
    project: Path
    vars: dict[str, Any]
    quiet: bool = False
    # dbt as a process, for its peak RSS; without it dbt runs in this process (no start-up per run)
    memory: bool = True

    def dbt(self, *args: str) -> DbtResult:
        """Run dbt through the one runner (as a process measuring its peak RSS, unless `memory` is off);
        a failure raises."""
        # no time limit: a 100M-event release may take longer than any limit a test would set
        runner = DbtRunner(self.project, env=self.env, target_path=self.workdir / "target",
                           log_path=self.workdir / "logs", timeout=None)
        result = runner.run(*args, measure_rss=self.memory)
        if not result.ok:
            raise DbtFailed(args, result)
        return result

    def run(self, *models: str) -> DbtResult:
        return self.dbt("run", "--select", *models, "--threads", "1", "--vars", json.dumps(self.vars))

    def time_model(self, model: str, repeats: int,
                   before_last: Callable[[], Any] | None = None) -> tuple[Timing, DbtResult]:
        """Run the model `repeats` times; before_last is called just before the last run."""
        timing = Timing()
        for i in range(repeats):
            if before_last is not None and i == repeats - 1:
                before_last()
            result = self.run(model)
            timing.seconds.append(result.execution_times()[model])
            if self.memory:
                timing.peak_mb.append(result.peak_rss_mb or 0.0)
        return timing, result


def python_baseline(kind: str, relation: str, hierarchy: str, env: dict[str, str], duckdb_path: Path | None) -> float:
    """The problem statement's approach: pull the grouped counts out, generalize in Python.
    Counts of people are summed when cells merge (which overcounts people: it is the baseline,
    not a correct release). Fetch included."""
    start = time.perf_counter()
    if kind == "duckdb":
        import duckdb

        conn: Any = duckdb.connect(str(duckdb_path), read_only=True)
    else:
        conn = connect("postgres")
    try:
        cur = conn.cursor()
        cur.execute(f"select branch, age_band, title, count(distinct patron_token) from {relation} "
                    "group by branch, age_band, title")
        cells = cur.fetchall()
        parents: dict[str, dict[str, tuple[str, ...]]] = {}
        for dim in ("branch", "age_band", "title"):
            cur.execute(f"select * from {hierarchy}_{dim}")
            parents[dim] = {str(row[0]): tuple(str(x) for x in row) for row in cur.fetchall()}
    finally:
        conn.close()
    depths = {dim: len(next(iter(rows.values()))) - 1 for dim, rows in parents.items()}
    levels = [0, 0, 0]
    pending = [((str(b), str(a), str(t)), int(n)) for b, a, t, n in cells]
    released: list[tuple[tuple[str, ...], tuple[int, ...], int]] = []
    dims = ("branch", "age_band", "title")
    while True:
        groups: dict[tuple[str, ...], list[tuple[tuple[str, str, str], int]]] = {}
        for leaf, n in pending:
            key = tuple(parents[d][v][levels[i]] for i, (d, v) in enumerate(zip(dims, leaf, strict=True)))
            groups.setdefault(key, []).append((leaf, n))
        pending = []
        for key, members in groups.items():
            total = sum(n for _, n in members)
            if total >= K:
                released.append((key, tuple(levels), total))
            else:
                pending.extend(members)
        raisable = [i for i, d in enumerate(dims) if levels[i] < depths[d]]
        if not pending or not raisable:
            break
        levels[min(raisable, key=lambda i: levels[i])] += 1
    return time.perf_counter() - start


@dataclass
class Result:
    warehouse: str
    size: int
    report: str
    floor: Timing
    release: Timing
    engine: Timing | None  # None: not run (Spark without --spark-engine)
    recount: Timing | None
    python_seconds: float | None
    thin_share: float
    cells: int  # finest cells of the report (rows of its floor)
    trail: Trail
    setting: str = ""  # how the warehouse ran, when it matters (Spark: local[N] and its driver memory)


@dataclass(frozen=True)
class SparkSettings:
    """How the benchmark runs Spark: local[cores], the driver's memory, which reports, and
    whether engine_ and recount_ are timed too (each one more dbt invocation per report). cluster:
    on a standalone cluster started for the run (kanon_tools.dev.spark_cluster: two workers of one
    core, `memory` for each executor and the driver; profiles.yml's spark_cluster output) instead."""

    cores: int = 2
    memory: str = "2g"
    reports: tuple[str, ...] = tuple(REPORTS)
    engine: bool = False
    cluster: bool = False

    def describe(self) -> str:
        if self.cluster:
            return (f"a standalone cluster on this machine ({spark_cluster.WORKERS} workers of 1 core, the 2 cores "
                    f"in all; {self.memory} per executor and for the driver, a Spark Connect server)")
        return f"local[{self.cores}], driver memory {self.memory}"

    @property
    def target(self) -> str:
        """profiles.yml's output for these settings."""
        return "spark_cluster" if self.cluster else "spark"

    def started(self, directory: Path) -> contextlib.AbstractContextManager[Any]:
        """The cluster for a run (SPARK_REMOTE set while it lasts), or nothing to start."""
        return spark_cluster.running(directory, memory=self.memory) if self.cluster else contextlib.nullcontext()


def run_size(kind: str, size: int, repeats: int, workdir: Path, quiet: bool, python: bool,
             spark: SparkSettings | None = None, failures: list[Failure] | None = None,
             memory: bool = True) -> list[Result]:
    """Generate `size` events on the warehouse `kind`, build the inputs, time each report's models.
    spark: the Spark settings (required for kind spark, ignored otherwise). failures: where a Spark
    model that failed is recorded (without it, as elsewhere, a failure raises)."""
    workdir.mkdir(parents=True, exist_ok=True)
    # a cluster for the run where the Spark settings ask for one (SparkSettings.started)
    started = (spark.started(workdir / f"cluster_{label(size)}") if kind == "spark" and spark is not None
               else contextlib.nullcontext())
    with started:
        return _run_size(kind, size, repeats, workdir, quiet, python, spark, failures, memory)


def _run_size(kind: str, size: int, repeats: int, workdir: Path, quiet: bool, python: bool,
              spark: SparkSettings | None, failures: list[Failure] | None, memory: bool) -> list[Result]:
    env = {**os.environ, "DBT_PROFILES_DIR": str(ROOT),
           "KANON_TARGET": spark.target if kind == "spark" and spark is not None else kind,
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    duckdb_path: Path | None = None
    warehouse: SparkWarehouse | None = None
    reports = tuple(REPORTS)
    if kind != "spark":
        spark = None
    start = time.perf_counter()
    if kind == "duckdb":
        duckdb_path = workdir / f"bench_{label(size)}.duckdb"
        for stale in (duckdb_path, Path(f"{duckdb_path}.wal")):
            stale.unlink(missing_ok=True)
        events = {profile: f"main.{table}" for profile, table in PROFILE_TABLES.items()}
        for profile, table in PROFILE_TABLES.items():
            generate.write_duckdb(duckdb_path, table, events=size, profile=profile, quiet=quiet)
        env.update(KANON_DUCKDB_PATH=str(duckdb_path), KANON_SCHEMA="main")
    elif kind == "spark":
        spark = spark or SparkSettings()
        reports = spark.reports
        warehouse = _load_spark(size, workdir, quiet, spark)
        events = {profile: f"{SPARK_SCHEMA}.{table}" for profile, table in PROFILE_TABLES.items()}
        env.update(KANON_SCHEMA=warehouse.schema, KANON_SPARK_DIR=str(warehouse.directory),
                   KANON_SPARK_CORES=str(spark.cores), KANON_SPARK_MEMORY=spark.memory)
    else:
        _drop_postgres_schemas()
        conn = connect("postgres")
        conn.cursor().execute(f"create schema {PG_SCHEMA}")
        conn.close()
        events = {profile: f"{PG_SCHEMA}.{table}" for profile, table in PROFILE_TABLES.items()}
        for profile, relation in events.items():
            generate.write_postgres(relation, events=size, profile=profile, quiet=quiet)
        env.update(KANON_SCHEMA=f"{PG_SCHEMA}_out")
    if not quiet:
        print(f"[{kind} {label(size)}] generated in {time.perf_counter() - start:.1f}s", flush=True)

    bench = Bench(workdir, env, workdir / f"project_{kind}", project_vars(events), quiet, memory)
    write_project(bench.project)
    bench.dbt("deps")
    bench.run(*INPUT_MODELS)

    results = []
    setting = spark.describe() if spark is not None else ""

    def one(report: str) -> Result:
        floor, _ = bench.time_model(f"floor_{report}", repeats)
        if warehouse is not None:
            # the trail just before the last release; then what it added, and the floor's cells,
            # read in one Spark start
            spark_before: dict[str, tuple[int, int | None]] = {}
            on_spark: SparkWarehouse = warehouse

            def spark_sizes(sizes: dict[str, tuple[int, int | None]] = spark_before,
                            on: SparkWarehouse = on_spark) -> None:
                sizes.update(on.trail()[0])

            release, last = bench.time_model(f"release_{report}", repeats, spark_sizes)
            trail, thin_share, cells = on_spark.release_added(spark_before, str(last.invocation_id), report)
        else:
            # the trail's size just before the last release, to see what that one release added
            before: dict[str, tuple[int, int]] = {}

            def measure_before(sizes: dict[str, tuple[int, int]] = before) -> None:
                sizes.update(_trail_sizes(kind, duckdb_path))

            release, last = bench.time_model(f"release_{report}", repeats, measure_before)
            trail = _trail_added(kind, duckdb_path, before, str(last.invocation_id))
            thin_share, cells = _thin_share(kind, duckdb_path, report)
        engine = recount = None
        if spark is None or spark.engine:
            engine = bench.time_model(f"engine_{report}", repeats)[0]
            recount = bench.time_model(f"recount_{report}", repeats)[0] if report in RECOUNTED else None
        py = None
        if python and report == "thin" and spark is None:
            py = python_baseline(kind, events["default"], events["default"] + "_hierarchy", env, duckdb_path)
        result = Result(kind, size, report, floor, release, engine, recount, py, thin_share, cells, trail, setting)
        if not quiet:
            print(f"[{kind} {label(size)}] {report}: {cells:,} cells, {thin_share:.0%} thin; floor "
                  f"{floor.median:.2f}s release {release.median:.2f}s ratio {release.median / floor.median:.2f}; "
                  f"trail +{trail.total_rows:,} rows, +{_mb(trail.bytes)} MB per release", flush=True)
        return result

    for report in reports:
        try:
            results.append(one(report))
        except DbtFailed as failed:
            # On Spark a model that fails (out of memory, say) is reported and the next report run:
            # a long run keeps what it measured. Elsewhere a failure is a bug: it stops the run.
            if spark is None or failures is None:
                raise
            failures.append(Failure(kind, size, report, failed.model, failed.message, setting))
            print(f"[{kind} {label(size)}] {report}: {failed.model} failed: {failed.message}", file=sys.stderr,
                  flush=True)
    if kind == "postgres":
        _drop_postgres_schemas()
    elif warehouse is not None:
        shutil.rmtree(warehouse.directory)
    elif duckdb_path is not None:
        duckdb_path.unlink(missing_ok=True)
    return results


# --- Spark: Parquet inputs, and reading the warehouse between dbt invocations --------------------

def _load_spark(size: int, workdir: Path, quiet: bool, settings: SparkSettings) -> SparkWarehouse:
    """A fresh Spark warehouse for `size` (<workdir>/spark_<size>: metastore, warehouse, inputs):
    the generator's events (both profiles) and hierarchies, written by the generator into a scratch
    DuckDB file, exported from it to Parquet (inputs/<table>/) and registered in Spark as tables over
    those files, in one Spark start."""
    directory = workdir / f"spark_{label(size)}"
    scratch = workdir / f"bench_{label(size)}_spark.duckdb"
    for stale in (scratch, Path(f"{scratch}.wal")):
        stale.unlink(missing_ok=True)
    for profile, table in PROFILE_TABLES.items():
        generate.write_duckdb(scratch, table, events=size, profile=profile, quiet=quiet)
    counts = [f"select count(*) from {SPARK_SCHEMA}.{table}" for table in PROFILE_TABLES.values()]
    warehouse, answers = spark_from_duckdb(scratch, directory, settings, counts)
    loaded = {table: int(rows[0][0]) for table, rows in zip(PROFILE_TABLES.values(), answers, strict=True)}
    if set(loaded.values()) != {size}:
        raise RuntimeError(f"Spark reads {loaded} events from the Parquet inputs, expected {size} in each")
    return warehouse


def spark_from_duckdb(scratch: Path, directory: Path, settings: SparkSettings, checks: Sequence[str] = (),
                      ) -> tuple[SparkWarehouse, list[list[list[Any]]]]:
    """A fresh Spark warehouse in `directory` (metastore, warehouse, inputs) holding every table of
    the scratch DuckDB file's main schema (deleted after): exported to Parquet (inputs/<table>/) and
    registered in Spark as SPARK_SCHEMA.<table> over those files, in one Spark start, which also
    answers `checks` (their rows, in order)."""
    import duckdb

    if directory.exists():
        shutil.rmtree(directory)
    inputs = directory / "inputs"
    inputs.mkdir(parents=True)
    conn = duckdb.connect(str(scratch))
    try:
        tables = [str(row[0]) for row in conn.execute(
            "select table_name from information_schema.tables where table_schema = 'main' order by table_name"
        ).fetchall()]
        for table in tables:
            (inputs / table).mkdir()
            # Spark reads no nanosecond timestamps (pandas' own): those columns go as microseconds
            columns = [f"cast({quote_ident(name)} as timestamp) as {quote_ident(name)}" if kind == "TIMESTAMP_NS"
                       else quote_ident(name) for name, kind in conn.execute(
                           "select column_name, data_type from information_schema.columns where table_schema = 'main' "
                           "and table_name = ? order by ordinal_position", [table]).fetchall()]
            conn.execute(f"copy (select {', '.join(columns)} from main.{quote_ident(table)}) to "
                         f"{_literal(str(inputs / table / 'data.parquet'))} (format parquet)")
    finally:
        conn.close()
    for done in (scratch, Path(f"{scratch}.wal")):
        done.unlink(missing_ok=True)
    statements = [f"create schema {SPARK_SCHEMA}"]
    statements += [f"create table {SPARK_SCHEMA}.{table} using parquet location {spark_literal(str(inputs / table))}"
                   for table in tables]
    warehouse = SparkWarehouse(directory, f"{SPARK_SCHEMA}_out", settings.cores, settings.memory)
    answers = warehouse.sql(*statements, *checks)
    return warehouse, answers[len(statements):]


@dataclass
class SparkWarehouse:
    """The bench's Spark warehouse (KANON_SPARK_DIR = directory; dbt builds in `schema`), read
    through spark_sql subprocesses while no dbt runs (one process at a time may open its Derby
    metastore). Spark has no information_schema: the trail's schema is found with `show schemas`
    (the one of <schema> and <schema>_* holding kanon_audit_releases), its tables with `show
    tables` (less `show views`), their columns and files with `describe table extended`. What it
    learns is kept, so that once the trail exists a measurement costs one Spark start."""

    directory: Path
    schema: str
    cores: int
    memory: str
    audit: str | None = None  # the trail's schema, once found
    # each audit table: whether it has invocation_id, and the directory of its files (None: not local)
    tables: dict[str, tuple[bool, Path | None]] = field(default_factory=dict)

    def sql(self, *statements: str) -> list[list[list[Any]]]:
        return run_spark_sql(self.directory, *statements, cores=self.cores, memory=self.memory)

    def trail(self, invocation_id: str | None = None, *extra: str,
              ) -> tuple[dict[str, tuple[int, int | None]], dict[str, int], list[list[list[Any]]]]:
        """(rows, bytes) of each kanon_audit_* table now (bytes: its files on disk; None when they
        are not local files); with invocation_id, the rows carrying it in each table that has that
        column; and the rows of the `extra` statements, run in the same Spark start."""
        if self.audit is None:
            [schemas] = self.sql("show schemas")
            candidates = sorted(name for name in (str(row[0]) for row in schemas)
                                if name == self.schema or name.startswith(self.schema + "_"))
        else:
            candidates = [self.audit]
        known = sorted(self.tables)
        with_id = [table for table in known if self.tables[table][0]] if invocation_id is not None else []
        statements = [f"show {what} in {schema}" for schema in candidates for what in ("tables", "views")]
        statements += [f"select count(*) from {self.audit}.{table}" for table in known]
        statements += [f"select count(*) from {self.audit}.{table} where invocation_id = "
                       f"{spark_literal(str(invocation_id))}" for table in with_id]
        statements += extra
        if not statements:  # no schema of the bench's yet
            return {}, {}, []
        answers = self.sql(*statements)
        listings = answers[:2 * len(candidates)]
        counts = [int(rows[0][0]) for rows in answers[len(listings):len(listings) + len(known)]]
        by_id = [int(rows[0][0]) for rows in answers[len(listings) + len(known):len(answers) - len(extra)]]
        extra_rows = answers[len(answers) - len(extra):] if extra else []

        found: dict[str, list[str]] = {}
        for i, schema in enumerate(candidates):
            views = {str(row[1]) for row in listings[2 * i + 1]}
            names = [str(row[1]) for row in listings[2 * i] if str(row[1]) not in views and not row[2]]
            if "kanon_audit_releases" in names:
                found[schema] = sorted(name for name in names if name.startswith("kanon_audit_"))
        if not found:  # before the first release: no trail yet, nothing to count
            return {}, {}, extra_rows
        if len(found) > 1:
            raise RuntimeError(f"expected one schema holding kanon_audit_releases, found {', '.join(found)}")
        [(self.audit, names)] = found.items()
        rows = dict(zip(known, counts, strict=True))
        added = dict(zip(with_id, by_id, strict=True))
        new = [name for name in names if name not in self.tables]
        if new:  # tables not seen before (the first release): their columns, files and rows
            answers = self.sql(*[f"describe table extended {self.audit}.{name}" for name in new],
                               *[f"select count(*) from {self.audit}.{name}" for name in new])
            for name, described, counted in zip(new, answers[:len(new)], answers[len(new):], strict=True):
                self.tables[name] = _described(described)
                rows[name] = int(counted[0][0])
            new_with_id = [name for name in new if self.tables[name][0]] if invocation_id is not None else []
            if new_with_id:
                answers = self.sql(*[f"select count(*) from {self.audit}.{name} where invocation_id = "
                                     f"{spark_literal(str(invocation_id))}" for name in new_with_id])
                added.update({name: int(counted[0][0]) for name, counted in zip(new_with_id, answers, strict=True)})
        sizes: dict[str, tuple[int, int | None]] = {}
        for name in names:
            files = self.tables[name][1]
            sizes[name] = (rows[name], None if files is None else _files_bytes(files))
        return sizes, added, extra_rows

    def release_added(self, before: Mapping[str, tuple[int, int | None]], invocation_id: str,
                      report: str) -> tuple[Trail, float, int]:
        """What the release of `invocation_id` added to the trail (rows carrying its invocation_id
        in each table, the row-count growth for a table without that column; bytes: the growth of
        the tables' files), and the report's thin share and finest cells, from its floor."""
        after, added, [thin] = self.trail(invocation_id, f"select avg(case when people < {K} then 1.0 else 0.0 end), "
                                                         f"count(*) from {self.schema}.floor_{report}")
        rows = {table: added[table] if table in added else total - before.get(table, (0, 0))[0]
                for table, (total, _) in after.items()}
        grown: int | None = 0
        for table, (_, size) in after.items():
            was = before.get(table, (0, 0))[1]
            grown = None if grown is None or size is None or was is None else grown + size - was
        share = float(thin[0][0]) if thin and thin[0][0] is not None else 0.0
        return Trail(rows, None if grown is None else max(grown, 0)), share, int(thin[0][1]) if thin else 0


def _described(rows: Sequence[Sequence[Any]]) -> tuple[bool, Path | None]:
    """From `describe table extended`: whether the table has invocation_id, and where its files are
    (None when not on the local file system)."""
    columns: set[str] = set()
    location: Path | None = None
    in_columns = True
    for row in rows:
        name = str(row[0] or "").strip()
        if not name or name.startswith("#"):
            in_columns = False  # the columns end at the first blank row or # heading
        elif in_columns:
            columns.add(name.lower())
        elif name == "Location":
            text = str(row[1])
            if text.startswith("file:"):
                location = Path(urllib.parse.unquote(urllib.parse.urlparse(text).path))
            elif text.startswith("/"):
                location = Path(text)
    return "invocation_id" in columns, location


def _files_bytes(directory: Path) -> int:
    """The bytes of a table's data files (Hadoop's hidden .crc and _SUCCESS files left out)."""
    if not directory.is_dir():
        return 0
    return sum(path.stat().st_size for path in directory.rglob("*")
               if path.is_file() and not any(part.startswith((".", "_")) for part in path.relative_to(directory).parts))


def _drop_postgres_schemas() -> None:
    """The generator's schema and everything dbt built beside it (<schema>_out, its audit schema)."""
    conn = connect("postgres")
    try:
        cur = conn.cursor()
        cur.execute("select nspname from pg_namespace where nspname = %s or nspname like %s",
                    (PG_SCHEMA, PG_SCHEMA + "\\_out%"))
        for (schema,) in cur.fetchall():
            cur.execute(f"drop schema if exists {quote_ident(schema)} cascade")
    finally:
        conn.close()


def _read(kind: str, duckdb_path: Path | None) -> Any:
    if kind == "duckdb":
        import duckdb

        return duckdb.connect(str(duckdb_path), read_only=True)
    return connect("postgres")


def _thin_share(kind: str, duckdb_path: Path | None, report: str) -> tuple[float, int]:
    """Share of the report's finest cells holding fewer than K people, and how many finest cells
    there are (from its floor, just built)."""
    conn = _read(kind, duckdb_path)
    schema = "main" if kind == "duckdb" else f"{PG_SCHEMA}_out"
    try:
        cur = conn.cursor()
        cur.execute(f"select avg(case when people < {K} then 1.0 else 0.0 end), count(*) from {schema}.floor_{report}")
        row = cur.fetchone()
        return (float(row[0]) if row and row[0] is not None else 0.0), int(row[1]) if row else 0
    finally:
        conn.close()


# --- the audit trail's growth --------------------------------------------------------------------

def _audit_tables(cur: Any, kind: str) -> list[tuple[str, str]]:
    """(schema, table) of every kanon_audit_* table in the schema holding the bench's
    kanon_audit_releases (<target schema>_<audit schema>): whatever tables the trail has, not a
    fixed list. On Postgres the database is shared, so other schemas' trails are left out."""
    own = "main" if kind == "duckdb" else f"{PG_SCHEMA}_out"
    cur.execute("select table_schema from information_schema.tables where table_name = 'kanon_audit_releases'")
    schemas = [str(row[0]) for row in cur.fetchall()]
    schemas = [schema for schema in schemas if schema == own or schema.startswith(own + "_")]
    if not schemas:  # before the first release: no trail yet, nothing to count
        return []
    if len(schemas) > 1:
        raise RuntimeError(f"expected one schema holding kanon_audit_releases, found {', '.join(schemas)}")
    cur.execute(f"select table_name from information_schema.tables where table_schema = {_literal(schemas[0])}")
    names = sorted(str(row[0]) for row in cur.fetchall())
    return [(schemas[0], name) for name in names if name.startswith("kanon_audit_")]


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _trail_sizes(kind: str, duckdb_path: Path | None) -> dict[str, tuple[int, int]]:
    """(rows, bytes) of each audit table now. Bytes: on Postgres pg_total_relation_size (table,
    TOAST and indexes); on DuckDB the storage blocks the table's column segments occupy."""
    conn = _read(kind, duckdb_path)
    try:
        cur = conn.cursor()
        sizes: dict[str, tuple[int, int]] = {}
        block_size = 0
        if kind == "duckdb":
            cur.execute("select block_size from pragma_database_size() limit 1")
            block_size = int(cur.fetchone()[0])
        for schema, table in _audit_tables(cur, kind):
            relation = f"{quote_ident(schema)}.{quote_ident(table)}"
            cur.execute(f"select count(*) from {relation}")
            rows = int(cur.fetchone()[0])
            if kind == "duckdb":
                cur.execute(
                    "select count(distinct block_id) filter (where block_id >= 0)"
                    " + coalesce(sum(len(additional_block_ids)), 0)"
                    f" from pragma_storage_info({_literal(schema + '.' + table)}) where persistent"
                )
                size = int(cur.fetchone()[0] or 0) * block_size
            else:
                cur.execute(f"select pg_total_relation_size({_literal(relation)}::regclass)")
                size = int(cur.fetchone()[0])
            sizes[table] = (rows, size)
        return sizes
    finally:
        conn.close()


def _trail_added(kind: str, duckdb_path: Path | None, before: Mapping[str, tuple[int, int]],
                 invocation_id: str) -> Trail:
    """What the release of `invocation_id` added: rows carrying its invocation_id in each audit
    table (the row-count growth for a table without that column), and bytes.

    Bytes on Postgres: how much the tables grew since `before`. On DuckDB a table's blocks are
    rewritten and reused at each checkpoint, so growth is too coarse (256 KiB blocks): the
    release's share of each table's storage instead, its rows / the table's rows."""
    after = _trail_sizes(kind, duckdb_path)
    conn = _read(kind, duckdb_path)
    rows: dict[str, int] = {}
    try:
        cur = conn.cursor()
        for schema, table in _audit_tables(cur, kind):
            cur.execute("select column_name from information_schema.columns "
                        f"where table_schema = {_literal(schema)} and table_name = {_literal(table)}")
            if "invocation_id" in {str(row[0]).lower() for row in cur.fetchall()}:
                cur.execute(f"select count(*) from {quote_ident(schema)}.{quote_ident(table)} "
                            f"where invocation_id = {_literal(invocation_id)}")
                rows[table] = int(cur.fetchone()[0])
            else:
                rows[table] = after[table][0] - before.get(table, (0, 0))[0]
    finally:
        conn.close()
    if kind == "duckdb":
        added = sum(size * rows[table] / total for table, (total, size) in after.items() if total)
    else:
        added = sum(size - before.get(table, (0, 0))[1] for table, (_, size) in after.items())
    return Trail(rows, max(round(added), 0))


def _mb(size: int | None) -> str:
    return "?" if size is None else f"{size / 2**20:,.1f}"


def _gb(size: int | None) -> str:
    return "? GB" if size is None else f"{size / 2**30:,.2f} GB"


# --- reporting -----------------------------------------------------------------------------------

def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    from importlib.metadata import PackageNotFoundError, version

    import duckdb

    versions = [f"Python {platform.python_version()}", f"duckdb {duckdb.__version__}"]
    for package in ("dbt-core", "dbt-duckdb", "dbt-postgres", "dbt-spark", "pyspark"):
        with contextlib.suppress(PackageNotFoundError):  # a warehouse's adapter may not be installed
            versions.append(f"{package} {version(package)}")
    system = f"{platform.system()} {platform.release()}"
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, {system}; " + ", ".join(versions)


def _peak(t: Timing) -> str:
    """The median peak MB of a timing's runs, or – when it was not measured (--no-memory)."""
    return f"{statistics.median(t.peak_mb):.0f}" if t.peak_mb else "–"


def _fmt(t: Timing) -> str:
    return f"{t.median:.2f} ({min(t.seconds):.2f}–{max(t.seconds):.2f})"


def _groups(results: Sequence[Result], failures: Sequence[Failure],
            ) -> list[tuple[str, int, list[Result], list[Failure]]]:
    """(warehouse, size, its results, its failures) in the report's order: DuckDB, Postgres, Spark;
    sizes ascending."""
    return [(kind, size, [r for r in results if r.warehouse == kind and r.size == size],
             [f for f in failures if f.warehouse == kind and f.size == size])
            for kind, _ in WAREHOUSES
            for size in sorted({r.size for r in results if r.warehouse == kind}
                               | {f.size for f in failures if f.warehouse == kind})]


def markdown(results: Sequence[Result], command: str, plot: Path | None, failures: Sequence[Failure] = ()) -> str:
    lines = [
        "# Benchmarks: what a release costs against the bare aggregate",
        "",
        "Generated by `python -m kanon_tools bench` (see `python_helpers/kanon_tools/dev/bench.py`).",
        "",
        f"- **Machine:** {machine()}",
        f"- **Reproduce:** `{command}`",
        f"- **k = {K}.** Times are seconds, median (min–max) of the runs, dbt's own execution time of the"
        " model (no dbt start-up). *floor*: `count(distinct patron_token)` grouped by the report's"
        " dimensions, as a table. *release*: `kanon.release_counts` with the default ladder through the"
        " `k_anonymous` materialization, gate and audit trail included. *engine*: the same call as a plain"
        " table (no gate, no audit trail, no swap). *floor + recount*: the floor plus"
        " one distinct pass over the thin cells' events, the least any correct release must do."
        " *Python*: the grouped counts fetched into Python and generalized there (summing counts of people,"
        " which is wrong), fetch included. Peak memory is the dbt process's peak RSS (DuckDB runs inside it;"
        " for Postgres it is the client's; for Spark the dbt Python process's, without the JVM it starts,"
        " where Spark works). *finest cells*: rows of the floor; *thin cells*: the share of them"
        f" below k. *trail rows / release*: the rows the last release of the report wrote to the audit trail"
        " (every kanon_audit_* table, by its invocation_id); *trail MB / release*: how much those tables grew"
        " with it (Postgres: the growth of pg_total_relation_size; DuckDB: the release's share of the storage"
        " blocks the tables occupy, its rows / their rows, since DuckDB rewrites blocks at each checkpoint;"
        " Spark: the growth of the tables' Parquet files)."
        " A table without invocation_id (content-addressed, like kanon_audit_hierarchies) counts the rows the"
        " release added: a report's first release stores its hierarchies once, later ones with the same"
        " hierarchies add none, so with one run per model (the first release) the year's figure overstates"
        " them.",
        "- **Spark** (when run): dbt-spark's session method, Spark in local mode in a JVM the dbt process"
        " starts (its cores and driver memory in the section's title), an embedded Derby metastore; the"
        " generator's events and hierarchies are exported from DuckDB to Parquet and read by Spark as tables"
        " over those files. Starting Spark (tens of seconds per dbt invocation) is not in the times. Unless"
        " `--spark-engine` is given, *engine* and *floor + recount* are not run on Spark (–), and the"
        " Python baseline never is.",
        "",
    ]
    groups = _groups(results, failures)
    for kind, size, rows, failed in groups:
        setting = next((f" ({s})" for s in [*(r.setting for r in rows), *(f.setting for f in failed)] if s), "")
        lines += [f"## {kind}, {label(size)} events{setting}", ""]
        for f in failed:
            lines.append(f"- **{f.report} ({' x '.join(REPORTS[f.report])}): not measured**, `{f.model}` failed: "
                         f"{f.message}")
        if failed:
            lines.append("")
        if not rows:
            continue
        lines += [
            "| report | finest cells | thin cells | floor s | release s | release / floor | engine s | "
            "engine / floor | floor + recount s | release / (floor + recount) | release events/s | "
            "peak MB floor / release | Python s | trail rows / release | trail MB / release |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            ratio = r.release.median / r.floor.median
            engine = _fmt(r.engine) if r.engine else "–"
            engine_ratio = f"{r.engine.median / r.floor.median:.2f}" if r.engine else "–"
            recount = _fmt(r.recount) if r.recount else "–"
            vs_recount = f"{r.release.median / r.recount.median:.2f}" if r.recount else "–"
            python = f"{r.python_seconds:.2f}" if r.python_seconds is not None else "–"
            per_table = ", ".join(f"{name.removeprefix('kanon_audit_')} {n:,}" for name, n in r.trail.rows.items())
            lines.append(
                f"| {r.report} ({' x '.join(REPORTS[r.report])}) | {r.cells:,} | {r.thin_share:.0%} | "
                f"{_fmt(r.floor)} | {_fmt(r.release)} | **{ratio:.2f}** | {engine} | {engine_ratio} | "
                f"{recount} | {vs_recount} | "
                f"{r.size / r.release.median:,.0f} | {_peak(r.floor)} / "
                f"{_peak(r.release)} | {python} | {r.trail.total_rows:,} ({per_table}) | "
                f"{_mb(r.trail.bytes)} |"
            )
        yearly = "; ".join(f"{r.report} {365 * r.trail.total_rows:,} rows, "
                           f"{_gb(None if r.trail.bytes is None else 365 * r.trail.bytes)}" for r in rows)
        lines += ["", f"A nightly release for a year (x 365) adds to the audit trail: {yearly}.", ""]
    if len({(r.warehouse, r.size) for r in results}) > 1:
        lines += _scaling(results)
    if plot is not None:
        lines += [f"![time against size]({plot.name})", ""]
    return "\n".join(lines)


def _scaling(results: Sequence[Result]) -> list[str]:
    """Per report, each warehouse's floor, release and their ratio at each size, and how the times
    grew from its previous size."""
    lines = [
        "## How the time and the ratio scale with the events",
        "",
        "Each report on each warehouse and size, from the tables above; *grew*: the time against the same"
        " warehouse's next smaller size, with the events' own growth in brackets.",
        "",
    ]
    for report in REPORTS:
        rows = [r for kind, _ in WAREHOUSES
                for r in sorted((r for r in results if r.report == report and r.warehouse == kind),
                                key=lambda r: r.size)]
        if not rows:
            continue
        lines += [
            f"### {report} ({' x '.join(REPORTS[report])})",
            "",
            "| warehouse | events | floor s | release s | release / floor | floor grew | release grew |",
            "|---|---|---|---|---|---|---|",
        ]
        previous: Result | None = None
        for r in rows:
            if previous is not None and previous.warehouse == r.warehouse:
                growth = f"(events x{r.size / previous.size:,.3g})"
                floor_grew = f"x{r.floor.median / previous.floor.median:.2f} {growth}"
                release_grew = f"x{r.release.median / previous.release.median:.2f} {growth}"
            else:
                floor_grew = release_grew = "–"
            warehouse = f"{r.warehouse} ({r.setting})" if r.setting else r.warehouse
            lines.append(f"| {warehouse} | {label(r.size)} | {r.floor.median:.2f} | {r.release.median:.2f} | "
                         f"**{r.release.median / r.floor.median:.2f}** | {floor_grew} | {release_grew} |")
            previous = r
        lines.append("")
    return lines


def draw(results: Sequence[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    reports = [report for report in REPORTS if any(r.report == report for r in results)]
    fig, axes = plt.subplots(1, len(reports), figsize=(5.5 * len(reports), 4.2), sharey=False, squeeze=False)
    for ax, report in zip(axes[0], reports, strict=True):
        for kind, marker in WAREHOUSES:
            rows = sorted((r for r in results if r.report == report and r.warehouse == kind), key=lambda r: r.size)
            if not rows:
                continue
            sizes = [r.size / 1e6 for r in rows]
            ax.plot(sizes, [r.floor.median for r in rows], marker=marker, linestyle="--", label=f"{kind} floor")
            ax.plot(sizes, [r.release.median for r in rows], marker=marker, label=f"{kind} release")
        ax.set_title(f"{report}: {' x '.join(REPORTS[report])}")
        ax.set_xlabel("events (millions)")
        ax.set_ylabel("seconds (median)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    sizes = args.sizes + ([50_000_000, 100_000_000] if args.big else [])
    pg_sizes = args.postgres_sizes
    spark_sizes = args.spark_sizes + ([100_000_000] if args.spark_big else [])
    if not sizes and not pg_sizes and not spark_sizes:  # an empty report would overwrite the real one
        print(f"kanon bench: nothing to run: give sizes with --sizes, --postgres-sizes, --spark-sizes, --big or "
              f"--spark-big ({args.out} left as is)", file=sys.stderr)
        return 2
    workdir = Path(args.workdir).resolve()
    spark = SparkSettings(args.spark_cores, args.spark_memory, tuple(args.spark_reports), args.spark_engine,
                          args.spark_cluster)
    results: list[Result] = []
    failures: list[Failure] = []  # Spark's: a report whose model failed there
    for size in sizes:
        results += run_size("duckdb", size, args.repeats, workdir, args.quiet, not args.no_python,
                            memory=not args.no_memory)
    for size in pg_sizes:
        results += run_size("postgres", size, args.postgres_repeats, workdir, args.quiet, not args.no_python,
                            memory=not args.no_memory)
    for size in spark_sizes:
        results += run_size("spark", size, args.spark_repeats, workdir, args.quiet, False, spark, failures)
    out = Path(args.out)
    plot = Path(args.plot) if args.plot and results else None  # nothing to plot when every model failed
    if plot is not None:
        draw(results, plot)
    command = "python -m kanon_tools " + shlex.join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else "make bench"
    # Hand-written notes below the marker survive a re-run; the tables above it are regenerated.
    notes = ""
    if out.exists() and NOTES_MARKER in out.read_text():
        notes = out.read_text().split(NOTES_MARKER, 1)[1]
    out.write_text(markdown(results, command, plot, failures) + "\n" + NOTES_MARKER + notes)
    print(f"wrote {out}" + (f" and {plot}" if plot else ""))
    return 1 if failures else 0
