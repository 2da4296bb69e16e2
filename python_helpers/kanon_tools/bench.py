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
inside it; on Postgres it is the client only).

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
import json
import os
import platform
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kanon_tools import generate
from kanon_tools.cli_types import count_list, positive_count
from kanon_tools.dbt_runner import DbtResult, DbtRunner
from kanon_tools.warehouse import connect, quote_ident

ROOT = Path(__file__).resolve().parents[2]
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
NOTES_MARKER = "<!-- notes: everything below this line is kept when make bench rewrites the file -->"


# Sizes are event counts for the generator: at least the loans it plants (below that it refuses).
event_sizes = count_list(generate.PLANTED_EVENTS, " (the generator's planted loans)", what="event counts")


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


@dataclass
class Bench:
    workdir: Path
    env: dict[str, str]
    project: Path
    vars: dict[str, Any]
    quiet: bool = False

    def dbt(self, *args: str) -> DbtResult:
        """Run dbt through the one runner, measuring the process's peak RSS; a failure raises."""
        # no time limit: a 100M-event release may take longer than any limit a test would set
        runner = DbtRunner(self.project, env=self.env, target_path=self.workdir / "target",
                           log_path=self.workdir / "logs", timeout=None)
        result = runner.run(*args, measure_rss=True)
        if not result.ok:
            raise RuntimeError(f"dbt {' '.join(args)} failed:\n{result.output[-4000:]}")
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
    engine: Timing
    recount: Timing | None
    python_seconds: float | None
    thin_share: float
    cells: int  # finest cells of the report (rows of its floor)
    trail: Trail


def run_size(kind: str, size: int, repeats: int, workdir: Path, quiet: bool, python: bool) -> list[Result]:
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": kind,
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    duckdb_path: Path | None = None
    start = time.perf_counter()
    if kind == "duckdb":
        duckdb_path = workdir / f"bench_{label(size)}.duckdb"
        for stale in (duckdb_path, Path(f"{duckdb_path}.wal")):
            stale.unlink(missing_ok=True)
        events = {profile: f"main.{table}" for profile, table in PROFILE_TABLES.items()}
        for profile, table in PROFILE_TABLES.items():
            generate.write_duckdb(duckdb_path, table, events=size, profile=profile, quiet=quiet)
        env.update(KANON_DUCKDB_PATH=str(duckdb_path), KANON_SCHEMA="main")
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

    bench = Bench(workdir, env, workdir / f"project_{kind}", project_vars(events), quiet)
    write_project(bench.project)
    bench.dbt("deps")
    bench.run(*INPUT_MODELS)

    results = []
    for report in REPORTS:
        floor, _ = bench.time_model(f"floor_{report}", repeats)
        # the trail's size just before the last release, to see what that one release added
        before: dict[str, tuple[int, int]] = {}

        def measure_before(sizes: dict[str, tuple[int, int]] = before) -> None:
            sizes.update(_trail_sizes(kind, duckdb_path))

        release, last = bench.time_model(f"release_{report}", repeats, measure_before)
        trail = _trail_added(kind, duckdb_path, before, str(last.invocation_id))
        engine, _ = bench.time_model(f"engine_{report}", repeats)
        recount = bench.time_model(f"recount_{report}", repeats)[0] if report in RECOUNTED else None
        py = None
        if python and report == "thin":
            py = python_baseline(kind, events["default"], events["default"] + "_hierarchy", env, duckdb_path)
        thin_share, cells = _thin_share(kind, duckdb_path, report)
        result = Result(kind, size, report, floor, release, engine, recount, py, thin_share, cells, trail)
        results.append(result)
        if not quiet:
            print(f"[{kind} {label(size)}] {report}: {cells:,} cells, {thin_share:.0%} thin; floor "
                  f"{floor.median:.2f}s release {release.median:.2f}s ratio {release.median / floor.median:.2f}; "
                  f"trail +{trail.total_rows:,} rows, +{_mb(trail.bytes)} MB per release", flush=True)
    if kind == "postgres":
        _drop_postgres_schemas()
    elif duckdb_path is not None:
        duckdb_path.unlink(missing_ok=True)
    return results


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
    import duckdb

    versions = [f"Python {platform.python_version()}", f"duckdb {duckdb.__version__}"]
    try:
        from importlib.metadata import version

        versions += [f"dbt-core {version('dbt-core')}", f"dbt-duckdb {version('dbt-duckdb')}",
                     f"dbt-postgres {version('dbt-postgres')}"]
    except Exception:
        pass
    system = f"{platform.system()} {platform.release()}"
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, {system}; " + ", ".join(versions)


def _fmt(t: Timing) -> str:
    return f"{t.median:.2f} ({min(t.seconds):.2f}–{max(t.seconds):.2f})"


def markdown(results: Sequence[Result], command: str, plot: Path | None) -> str:
    lines = [
        "# Benchmarks: what a release costs against the bare aggregate",
        "",
        "Generated by `python -m kanon_tools bench` (see `python_helpers/kanon_tools/bench.py`).",
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
        " for Postgres it is the client's). *finest cells*: rows of the floor; *thin cells*: the share of them"
        f" below k. *trail rows / release*: the rows the last release of the report wrote to the audit trail"
        " (every kanon_audit_* table, by its invocation_id); *trail MB / release*: how much those tables grew"
        " with it (Postgres: the growth of pg_total_relation_size; DuckDB: the release's share of the storage"
        " blocks the tables occupy, its rows / their rows, since DuckDB rewrites blocks at each checkpoint)."
        " A table without invocation_id (content-addressed, like kanon_audit_hierarchies) counts the rows the"
        " release added: a report's first release stores its hierarchies once, later ones with the same"
        " hierarchies add none, so with one run per model (the first release) the year's figure overstates"
        " them.",
        "",
    ]
    for kind in ("duckdb", "postgres"):
        for size in sorted({r.size for r in results if r.warehouse == kind}):
            rows = [r for r in results if r.warehouse == kind and r.size == size]
            lines += [
                f"## {kind}, {label(size)} events",
                "",
                "| report | finest cells | thin cells | floor s | release s | release / floor | engine s | "
                "engine / floor | floor + recount s | release / (floor + recount) | release events/s | "
                "peak MB floor / release | Python s | trail rows / release | trail MB / release |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
            ]
            for r in rows:
                ratio = r.release.median / r.floor.median
                engine_ratio = r.engine.median / r.floor.median
                recount = _fmt(r.recount) if r.recount else "–"
                vs_recount = f"{r.release.median / r.recount.median:.2f}" if r.recount else "–"
                python = f"{r.python_seconds:.2f}" if r.python_seconds is not None else "–"
                per_table = ", ".join(f"{name.removeprefix('kanon_audit_')} {n:,}" for name, n in r.trail.rows.items())
                lines.append(
                    f"| {r.report} ({' x '.join(REPORTS[r.report])}) | {r.cells:,} | {r.thin_share:.0%} | "
                    f"{_fmt(r.floor)} | {_fmt(r.release)} | **{ratio:.2f}** | {_fmt(r.engine)} | {engine_ratio:.2f} | "
                    f"{recount} | {vs_recount} | "
                    f"{r.size / r.release.median:,.0f} | {statistics.median(r.floor.peak_mb):.0f} / "
                    f"{statistics.median(r.release.peak_mb):.0f} | {python} | {r.trail.total_rows:,} ({per_table}) | "
                    f"{_mb(r.trail.bytes)} |"
                )
            yearly = "; ".join(f"{r.report} {365 * r.trail.total_rows:,} rows, "
                               f"{_gb(None if r.trail.bytes is None else 365 * r.trail.bytes)}" for r in rows)
            lines += ["", f"A nightly release for a year (x 365) adds to the audit trail: {yearly}.", ""]
    if plot is not None:
        lines += [f"![time against size]({plot.name})", ""]
    return "\n".join(lines)


def draw(results: Sequence[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(REPORTS), figsize=(5.5 * len(REPORTS), 4.2), sharey=False)
    for ax, report in zip(axes, REPORTS, strict=True):
        for kind, marker in (("duckdb", "o"), ("postgres", "s")):
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
    if not sizes and not pg_sizes:  # an empty report would overwrite the real one
        print(f"kanon bench: nothing to run: give sizes with --sizes, --postgres-sizes or --big "
              f"({args.out} left as is)", file=sys.stderr)
        return 2
    workdir = Path(args.workdir).resolve()
    results: list[Result] = []
    for size in sizes:
        results += run_size("duckdb", size, args.repeats, workdir, args.quiet, not args.no_python)
    for size in pg_sizes:
        results += run_size("postgres", size, args.postgres_repeats, workdir, args.quiet, not args.no_python)
    out = Path(args.out)
    plot = Path(args.plot) if args.plot else None
    if plot is not None:
        draw(results, plot)
    command = "python -m kanon_tools " + " ".join(sys.argv[1:]) if sys.argv[1:2] == ["bench"] else "make bench"
    # Hand-written notes below the marker survive a re-run; the tables above it are regenerated.
    notes = ""
    if out.exists() and NOTES_MARKER in out.read_text():
        notes = out.read_text().split(NOTES_MARKER, 1)[1]
    out.write_text(markdown(results, command, plot) + "\n" + NOTES_MARKER + notes)
    print(f"wrote {out}" + (f" and {plot}" if plot else ""))
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="time releases against the bare aggregate (writes BENCHMARKS.md)")
    floor = generate.PLANTED_EVENTS
    parser.add_argument("--sizes", type=event_sizes, default="1M,10M",
                        help=f"DuckDB sizes in events, comma-separated (1M, 10M, 200k, ...), each >= {floor}; "
                             "'' for none (default %(default)s)")
    parser.add_argument("--big", action="store_true", help="add 50M and 100M events on DuckDB")
    parser.add_argument("--postgres-sizes", type=event_sizes, default="1M",
                        help=f"Postgres sizes, as --sizes, each >= {floor}; '' for none (default %(default)s)")
    parser.add_argument("--repeats", type=positive_count, default=3,
                        help="DuckDB runs per model: a whole number >= 1 (default %(default)s)")
    parser.add_argument("--postgres-repeats", type=positive_count, default=1,
                        help="Postgres runs per model, >= 1 (default %(default)s; its release is slow: "
                             "see BENCHMARKS.md)")
    parser.add_argument("--workdir", default="bench_out", help="scratch folder (databases, dbt project)")
    parser.add_argument("--out", default="BENCHMARKS.md")
    parser.add_argument("--plot", default="benchmarks.png", help="PNG plot path ('' for none)")
    parser.add_argument("--no-python", action="store_true", help="skip the fetch-into-Python baseline")
    parser.add_argument("--quiet", action="store_true")
    parser.set_defaults(func=run)
