"""`python -m kanon_tools bench` (`make bench`): what a release costs against the bare aggregate.

For each warehouse and size it generates circulation events with the generator, then builds,
through dbt, in a throw-away dbt project that installs kanon from this checkout:

  floor_<report>     the bare aggregate: count(distinct patron_token) grouped by the report's
                     dimensions, materialized as a table;
  release_<report>   the kanon release of the same report through the k_anonymous
                     materialization (default ladder; audit trail included);
  engine_<report>    the same release_counts call as a plain table: the engine alone, without
                     the gate, the audit trail and the swap;
  recount_thin       (thin-heavy report only) the floor plus one more distinct pass over the
                     events of the thin cells: the honest floor of a release that must recount;

for two reports: `thin` (branch x age band x title, most finest cells below k) and `dense`
(branch x age band x subject, few below k). Each model runs in its own dbt invocation, `repeats`
times; the time is dbt's own execution time of the node (run_results.json, no dbt start-up), the
memory the dbt process's peak RSS (DuckDB runs inside it; on Postgres it is the client only).

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
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kanon_tools import generate
from kanon_tools.cli_types import count_list, positive_count
from kanon_tools.warehouse import connect

ROOT = Path(__file__).resolve().parents[2]
K = 5
REPORTS = {"thin": ("branch", "age_band", "title"), "dense": ("branch", "age_band", "subject")}
PG_SCHEMA = "kanon_bench"
NOTES_MARKER = "<!-- notes: everything below this line is kept when make bench rewrites the file -->"


# Sizes are event counts for the generator: at least the loans it plants (below that it refuses).
event_sizes = count_list(generate.PLANTED_EVENTS, " (the generator's planted loans)", what="event counts")


def label(size: int) -> str:
    return f"{size // 1_000_000}M" if size % 1_000_000 == 0 else f"{size // 1_000}k" if size % 1_000 == 0 else str(size)


# --- the throw-away dbt project ------------------------------------------------------------------

def _models(events: str, hierarchy: str) -> dict[str, str]:
    """Model files of the bench project. `events` / `hierarchy` are the relations' SQL names
    (hierarchy without the _title/_branch/_age_band suffix)."""
    thin = "branch, age_band, title"
    dense = "branch, age_band, subject"
    call = """{config}
{{{{ kanon.release_counts(
    relation={relation},
    privacy_unit='patron_token',
    dimensions={dims},
    hierarchies={hierarchies},{extra}
) }}}}
"""
    configs = {
        "release": (f"{{{{ config(materialized='k_anonymous', k={K}) }}}}", ""),
        # the engine alone, as a plain table with the planner settings the k_anonymous
        # materialization sets (none on DuckDB); warn_missing off, since outside k_anonymous it
        # scans the events once more
        "engine": ("{{ config(materialized='table', pre_hook=\"{{ kanon.release_planner_settings() }}\") }}",
                   f"\n    k={K},\n    warn_missing=false,"),
    }
    hierarchies = "{'branch': ref('bench_hierarchy_branch'), 'age_band': ref('bench_hierarchy_age_band'), "
    reports = {
        "thin": ("ref('bench_events')", hierarchies + "'title': ref('bench_hierarchy_title')}"),
        "dense": ("ref('bench_events_subject')", hierarchies + "'subject': ref('bench_hierarchy_subject')}"),
    }
    releases = {
        f"{kind}_{report}.sql": call.format(config=config, extra=extra, relation=relation,
                                            dims=list(REPORTS[report]), hierarchies=hierarchy_refs)
        for kind, (config, extra) in configs.items()
        for report, (relation, hierarchy_refs) in reports.items()
    }
    h = hierarchy
    return {
        "bench_events.sql": f"{{{{ config(materialized='view') }}}}\nselect * from {events}\n",
        "bench_hierarchy_title.sql": f"{{{{ config(materialized='view') }}}}\nselect * from {h}_title\n",
        "bench_hierarchy_branch.sql": f"{{{{ config(materialized='view') }}}}\nselect * from {h}_branch\n",
        "bench_hierarchy_age_band.sql": f"{{{{ config(materialized='view') }}}}\nselect * from {h}_age_band\n",
        # the dense report's dimension: each loan's subject (the title hierarchy's level 1)
        "bench_events_subject.sql": (
            "{{ config(materialized='table') }}\n"
            "select e.patron_token, e.branch, e.age_band, h.level_1 as subject\n"
            "from {{ ref('bench_events') }} as e\n"
            "inner join {{ ref('bench_hierarchy_title') }} as h on e.title = h.level_0\n"
        ),
        "bench_hierarchy_subject.sql": (
            "{{ config(materialized='table') }}\n"
            "select distinct level_1 as level_0, level_2 as level_1, level_3 as level_2\n"
            "from {{ ref('bench_hierarchy_title') }}\n"
        ),
        "floor_thin.sql": (
            "{{ config(materialized='table') }}\n"
            f"select {thin}, count(distinct patron_token) as people\n"
            "from {{ ref('bench_events') }}\n"
            f"group by {thin}\n"
        ),
        "floor_dense.sql": (
            "{{ config(materialized='table') }}\n"
            f"select {dense}, count(distinct patron_token) as people\n"
            "from {{ ref('bench_events_subject') }}\n"
            f"group by {dense}\n"
        ),
        # the floor plus the one recount in distinct people any release of this report must do
        "recount_thin.sql": (
            "{{ config(materialized='table') }}\n"
            "with cells as (\n"
            f"    select {thin}, count(distinct patron_token) as people\n"
            "    from {{ ref('bench_events') }}\n"
            f"    group by {thin}\n"
            "),\n"
            "thin_events as (\n"
            "    select e.patron_token, e.branch, e.age_band, e.title\n"
            "    from {{ ref('bench_events') }} as e\n"
            "    inner join cells as c\n"
            "        on e.branch = c.branch and e.age_band = c.age_band and e.title = c.title\n"
            f"    where c.people < {K}\n"
            ")\n"
            f"select {thin}, people from cells where people >= {K}\n"
            "union all\n"
            "select t.branch, t.age_band, h.level_1, count(distinct t.patron_token)\n"
            "from thin_events as t\n"
            "inner join {{ ref('bench_hierarchy_title') }} as h on t.title = h.level_0\n"
            "group by t.branch, t.age_band, h.level_1\n"
        ),
        **releases,
    }


def write_project(path: Path, events: str, hierarchy: str) -> None:
    if path.exists():
        shutil.rmtree(path)
    (path / "models").mkdir(parents=True)
    (path / "dbt_project.yml").write_text(
        "name: kanon_bench\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "model-paths: [models]\n"
    )
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    for name, sql in _models(events, hierarchy).items():
        (path / "models" / name).write_text(sql)


# --- running and measuring -----------------------------------------------------------------------

@dataclass
class Timing:
    seconds: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


@dataclass
class Bench:
    workdir: Path
    env: dict[str, str]
    project: Path
    quiet: bool = False

    def dbt(self, *args: str) -> tuple[dict[str, float], float]:
        """Run dbt; returns each node's execution time and the process's peak RSS in MB."""
        target = self.workdir / "target"
        env = {**self.env, "DBT_TARGET_PATH": str(target), "DBT_LOG_PATH": str(self.workdir / "logs")}
        log = self.workdir / "dbt_output.txt"  # a file, not a pipe: nobody reads while we poll
        with log.open("w") as out:
            proc = subprocess.Popen(
                [str(Path(sys.executable).parent / "dbt"), *args, "--project-dir", str(self.project)],
                cwd=self.project, env=env, stdout=out, stderr=subprocess.STDOUT, text=True,
            )
        # Peak RSS from /proc (VmHWM, the process's own high-water mark, polled until it exits):
        # a forked child's ru_maxrss would also count the pages it shared with this process.
        peak_kib = 0
        status = Path(f"/proc/{proc.pid}/status")
        while proc.poll() is None:
            try:
                for line in status.read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak_kib = max(peak_kib, int(line.split()[1]))
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        output = log.read_text()
        if proc.returncode != 0:
            raise RuntimeError(f"dbt {' '.join(args)} failed:\n{output[-4000:]}")
        run_results = target / "run_results.json"
        if not run_results.exists():  # dbt deps writes none
            return {}, peak_kib / 1024
        results = json.loads(run_results.read_text())["results"]
        run_results.unlink()
        times = {r["unique_id"].split(".")[-1]: float(r["execution_time"]) for r in results}
        return times, peak_kib / 1024

    def time_model(self, model: str, repeats: int) -> Timing:
        timing = Timing()
        for _ in range(repeats):
            times, peak = self.dbt("run", "--select", model, "--threads", "1")
            timing.seconds.append(times[model])
            timing.peak_mb.append(peak)
        return timing


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
        generate.write_duckdb(duckdb_path, "events", events=size, quiet=quiet)
        env.update(KANON_DUCKDB_PATH=str(duckdb_path), KANON_SCHEMA="main")
        events, hierarchy = "main.events", "main.events_hierarchy"
    else:
        conn = connect("postgres")
        conn.cursor().execute(f"drop schema if exists {PG_SCHEMA} cascade; create schema {PG_SCHEMA}")
        conn.close()
        generate.write_postgres(f"{PG_SCHEMA}.events", events=size, quiet=quiet)
        env.update(KANON_SCHEMA=f"{PG_SCHEMA}_out")
        events, hierarchy = f"{PG_SCHEMA}.events", f"{PG_SCHEMA}.events_hierarchy"
    if not quiet:
        print(f"[{kind} {label(size)}] generated in {time.perf_counter() - start:.1f}s", flush=True)

    bench = Bench(workdir, env, workdir / f"project_{kind}", quiet)
    write_project(bench.project, events, hierarchy)
    bench.dbt("deps")
    bench.dbt("run", "--select", "bench_events", "bench_hierarchy_title", "bench_hierarchy_branch",
              "bench_hierarchy_age_band", "bench_events_subject", "bench_hierarchy_subject")

    results = []
    for report in REPORTS:
        floor = bench.time_model(f"floor_{report}", repeats)
        release = bench.time_model(f"release_{report}", repeats)
        engine = bench.time_model(f"engine_{report}", repeats)
        recount = bench.time_model("recount_thin", repeats) if report == "thin" else None
        py = python_baseline(kind, events, hierarchy, env, duckdb_path) if python and report == "thin" else None
        result = Result(kind, size, report, floor, release, engine, recount, py, _thin_share(kind, duckdb_path, report))
        results.append(result)
        if not quiet:
            print(f"[{kind} {label(size)}] {report}: floor {floor.median:.2f}s release {release.median:.2f}s "
                  f"ratio {release.median / floor.median:.2f}", flush=True)
    if kind == "postgres":
        conn = connect("postgres")
        conn.cursor().execute(
            f"drop schema if exists {PG_SCHEMA} cascade; drop schema if exists {PG_SCHEMA}_out cascade;"
            f" drop schema if exists {PG_SCHEMA}_out_kanon_audit cascade"
        )
        conn.close()
    elif duckdb_path is not None:
        duckdb_path.unlink(missing_ok=True)
    return results


def _thin_share(kind: str, duckdb_path: Path | None, report: str) -> float:
    """Share of the report's finest cells holding fewer than K people (from its floor, just built)."""
    if kind == "duckdb":
        import duckdb

        conn: Any = duckdb.connect(str(duckdb_path), read_only=True)
        schema = "main"
    else:
        conn = connect("postgres")
        schema = f"{PG_SCHEMA}_out"
    try:
        cur = conn.cursor()
        cur.execute(f"select avg(case when people < {K} then 1.0 else 0.0 end) from {schema}.floor_{report}")
        row = cur.fetchone()
        return float(row[0]) if row and row[0] is not None else 0.0
    finally:
        conn.close()


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
        " for Postgres it is the client's).",
        "",
    ]
    for kind in ("duckdb", "postgres"):
        for size in sorted({r.size for r in results if r.warehouse == kind}):
            rows = [r for r in results if r.warehouse == kind and r.size == size]
            lines += [
                f"## {kind}, {label(size)} events",
                "",
                "| report | thin cells | floor s | release s | release / floor | engine s | engine / floor | "
                "floor + recount s | release / (floor + recount) | release events/s | peak MB floor / release | "
                "Python s |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|",
            ]
            for r in rows:
                ratio = r.release.median / r.floor.median
                engine_ratio = r.engine.median / r.floor.median
                recount = _fmt(r.recount) if r.recount else "–"
                vs_recount = f"{r.release.median / r.recount.median:.2f}" if r.recount else "–"
                python = f"{r.python_seconds:.2f}" if r.python_seconds is not None else "–"
                lines.append(
                    f"| {r.report} ({' x '.join(REPORTS[r.report])}) | {r.thin_share:.0%} | {_fmt(r.floor)} | "
                    f"{_fmt(r.release)} | **{ratio:.2f}** | {_fmt(r.engine)} | {engine_ratio:.2f} | "
                    f"{recount} | {vs_recount} | "
                    f"{r.size / r.release.median:,.0f} | {statistics.median(r.floor.peak_mb):.0f} / "
                    f"{statistics.median(r.release.peak_mb):.0f} | {python} |"
                )
            lines.append("")
    if plot is not None:
        lines += [f"![time against size]({plot.name})", ""]
    return "\n".join(lines)


def draw(results: Sequence[Result], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=False)
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
