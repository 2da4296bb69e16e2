"""How long kanon.audit_cell_fates takes to replay the cells of a release, on DuckDB and Postgres.

A measurement, not a test (pytest does not collect it). For each warehouse it generates
circulation events (`python -m kanon_tools generate`, the default profile) and releases two
reports over them through the k_anonymous materialization, in a throwaway dbt project that
installs kanon from this checkout (the one this file is in):

  fates_flagship  branch x age band x title with the example's ladder (null_policy='root'):
                  nearly every thin cell is released at some step
  fates_suppress  the same cells with a short ladder (age band, then branch) and
                  null_policy='suppress': a hundred thousand groups suppressed

On Postgres the trail is then analyzed (as autovacuum soon does). For each report and each
`--cells` size (the first N cells of the events in order, or 'all'), it compiles the replay of
those cells with their people and runs it `--repeats` times, fetching every row; one Markdown
row each, with the median and the fastest run. `--explain DIR` also writes Postgres's
`explain (analyze, buffers)` of each replay there.

    .venv/bin/python tests/audit/bench_cell_fates.py --events 600k --cells 15000,all --repeats 3

`--without-people` calls the replay as kanon did before it had that argument (to measure an
older checkout: run this file from there). The scratch warehouses (a DuckDB file in --workdir,
Postgres schemas kb_fates_<random>) are dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python_helpers"))

from kanon_tools.cli.types import count_list  # noqa: E402
from kanon_tools.dbt_runner import DbtRunner  # noqa: E402
from kanon_tools.dev import generate  # noqa: E402
from kanon_tools.warehouse import postgres_params  # noqa: E402

MODEL = """{{ config(materialized='k_anonymous', k=5, count_column='patrons') }}
{%- set events = api.Relation.create(database=target.database, schema=target.schema, identifier='events') %}
{{ kanon.release_counts(
    relation=events,
    privacy_unit='patron_token',
    dimensions=['branch', 'age_band', 'title'],
    hierarchies={
        'branch': events.incorporate(path={'identifier': 'events_hierarchy_branch'}),
        'age_band': events.incorporate(path={'identifier': 'events_hierarchy_age_band'}),
        'title': events.incorporate(path={'identifier': 'events_hierarchy_title'}),
    },
    LADDER
) }}
"""
REPORTS = {
    "fates_flagship": "ladder=[{'title': 1}, {'age_band': 1}, {'title': 2}, {'branch': 1}, {'age_band': 2}],",
    "fates_suppress": "ladder=[{'age_band': 1}, {'branch': 1}],\n    null_policy='suppress',",
}


def _connect(kind: str, duckdb_path: Path) -> Any:
    if kind == "duckdb":
        import duckdb

        return duckdb.connect(str(duckdb_path))
    import psycopg2

    conn = psycopg2.connect(**postgres_params())
    conn.autocommit = True
    return conn


def _query(kind: str, duckdb_path: Path, sql: str) -> list[tuple[Any, ...]]:
    conn = _connect(kind, duckdb_path)
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return [tuple(row) for row in cur.fetchall()] if cur.description else []
    finally:
        conn.close()


def bench(kind: str, events: int, sizes: list[int], reports: list[str], repeats: int, workdir: Path,
          explain: Path | None, keep: bool, people: bool, analyze: bool = True) -> list[str]:
    schema = f"kb_fates_{uuid.uuid4().hex[:8]}"
    duckdb_path = workdir / f"wh_{schema}.duckdb"
    project = workdir / f"project_{kind}"
    shutil.rmtree(project, ignore_errors=True)
    (project / "models").mkdir(parents=True)
    (project / "dbt_project.yml").write_text(
        "name: kanon_fates_bench\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\nmodel-paths: [models]\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    for report, ladder in REPORTS.items():
        (project / "models" / f"{report}.sql").write_text(MODEL.replace("LADDER", ladder))
    env = {**os.environ, "DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": kind, "KANON_SCHEMA": schema,
           "KANON_DUCKDB_PATH": str(duckdb_path), "DBT_SEND_ANONYMOUS_USAGE_STATS": "false"}
    runner = DbtRunner(project, env=env, target_path=project / "target", log_path=project / "logs", timeout=None)
    audit = f'"{schema}_kanon_audit"'
    rows = []
    try:
        if kind == "duckdb":
            generate.write_duckdb(duckdb_path, table=f"{schema}.events", events=events, quiet=True)
        else:
            generate.write_postgres(table=f"{schema}.events", events=events, quiet=True)
        for args in (("deps",), ("build",)):
            result = runner.run(*args)
            if not result.ok:
                raise SystemExit(f"dbt {args[0]} failed:\n{result.output[-4000:]}")
        if kind == "postgres" and analyze:
            for table in ("kanon_audit_groups", "kanon_audit_hierarchies", "kanon_audit_releases"):
                _query(kind, duckdb_path, f"analyze {audit}.{table}")
        for report in reports:
            (groups, cells_in), = _query(kind, duckdb_path, (
                f"select (select count(*) from {audit}.kanon_audit_groups g where g.invocation_id = r.invocation_id "
                f"and g.report_unique_id = r.report_unique_id), "
                f"cells_in from {audit}.kanon_audit_releases r where report = '{report}'"))
            for size in sizes:
                cells = ("select branch, age_band, title, count(distinct patron_token) as people "
                         f'from "{schema}".events group by branch, age_band, title'
                         + (f" order by branch, age_band, title limit {size}" if size else ""))
                call = ("{{ kanon.audit_cell_fates(" + json.dumps(report) + ", " + json.dumps(cells)
                        + (", people='people'" if people else "") + ") }}")
                compiled = runner.run("compile", "--quiet", "--inline", call)
                if not compiled.ok:
                    raise SystemExit(f"dbt compile failed:\n{compiled.output[-4000:]}")
                sql = compiled.output
                times, fetched = [], 0
                for _ in range(repeats):
                    conn = _connect(kind, duckdb_path)
                    try:
                        cur = conn.cursor()
                        started = time.monotonic()
                        cur.execute(sql)
                        fetched = len(cur.fetchall())
                        times.append(time.monotonic() - started)
                    finally:
                        conn.close()
                assert fetched == (min(size, cells_in) if size else cells_in), (fetched, size, cells_in)
                if explain is not None and kind == "postgres":
                    explain.mkdir(parents=True, exist_ok=True)
                    plan = _query(kind, duckdb_path, "explain (analyze, buffers) " + sql)
                    text = "\n".join(str(line[0]) for line in plan) + "\n"
                    (explain / f"{report}_{size or 'all'}.txt").write_text(text)
                rows.append(f"| {kind} | {report} | {events:,} | {groups:,} | {fetched:,} | "
                            f"{statistics.median(times):.2f} | {min(times):.2f} |")
                print(rows[-1], file=sys.stderr, flush=True)
        return rows
    finally:
        if not keep:
            if kind == "duckdb":
                duckdb_path.unlink(missing_ok=True)
            else:
                for name in (schema, f"{schema}_kanon_audit"):
                    _query(kind, duckdb_path, f'drop schema if exists "{name}" cascade')


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=count_list(23), default=[600_000], help="events generated (600k or 600k,1M)")
    parser.add_argument("--cells", default="15000,all",
                        help="cells replayed per report: the first N cells, or all (default 15000,all)")
    parser.add_argument("--reports", nargs="+", choices=list(REPORTS), default=list(REPORTS),
                        help="the reports replayed (both are released)")
    parser.add_argument("--targets", nargs="+", choices=["duckdb", "postgres"], default=["duckdb", "postgres"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None, help="scratch folder (default: a temporary one)")
    parser.add_argument("--explain", type=Path, default=None, help="Postgres: write explain analyze into this folder")
    parser.add_argument("--keep", action="store_true", help="keep the scratch warehouses")
    parser.add_argument("--no-analyze", action="store_true",
                        help="Postgres: replay before the trail is analyzed (as right after a release)")
    parser.add_argument("--without-people", action="store_true",
                        help="call the replay without its people argument (as kanon did before it had one)")
    args = parser.parse_args(argv)
    sizes = [0 if size.strip() == "all" else int(size) for size in args.cells.split(",")]
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="kanon_fates_bench_"))
    workdir.mkdir(parents=True, exist_ok=True)
    rows = []
    for events in args.events:
        for kind in args.targets:
            rows += bench(kind, events, sizes, args.reports, args.repeats, workdir, args.explain, args.keep,
                          not args.without_people, not args.no_analyze)
    print("| warehouse | report | events | groups on the trail | cells replayed | replay s (median) "
          "| replay s (best) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
