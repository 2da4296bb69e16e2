"""`python -m kanon_tools bench-table`: what a table release with totals costs (issue 12's speed target).

Through dbt, in the bench project (bench_project/models/table, real files), for each warehouse it
generates the events of a two-way table (areas x topics, 1,000 x 100 cells by default, one event
per person): each cell's expected count is a row effect times a column effect (both log-normal),
its count Poisson around that, so that about 20 % of the cells hold 1 to k - 1 people, clustered in
thin rows and thin columns as in real tables (a few million events). Then it builds

  table_floor    the same cells and totals counted in one plain `create table as select` (nothing
                 hidden, nothing checked), and
  table_release  kanon.release_table over them with k, through the k_anonymous materialization
                 (primary suppression, the search for secondaries, the gate's recount and its
                 no_exact_disclosure check, audit trail, swap),

each in its own dbt invocation (dbt's execution time of the node). From the release's plan in the
audit trail: cells, primaries, secondaries, rounds and the search's own seconds. Then the attacker's
LP audit on what was published, by attack_report's code path: the mart read through `dbt
run-operation kanon.cli_table_cells` (timed apart: dbt's start and the JSON), and
kanon_tools.attack.audit on it (timed), which must find 0 exact disclosures.

`--generate-only --duckdb FILE` writes the events (of --rows x --columns cells) and stops (what
`make lint` compiles the bench project against).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_tools import attack_report
from kanon_tools.bench import ROOT, K, machine, project_vars, write_project
from kanon_tools.bench_records import _load, _plan, fresh_postgres_schema
from kanon_tools.cli_types import positive_count
from kanon_tools.dbt_runner import DbtRunner

SEED = 12
MODEL = "table_release"


def events(rows: int, columns: int, seed: int = SEED) -> pd.DataFrame:
    """One event per person, in the cells of a rows x columns table; the same for a seed everywhere.

    Expected counts exp(2.3 + a_row + b_column), a and b normal with sd 0.8: about 20 % of the
    cells below 5, a few % empty, about 24 events per cell."""
    rng = np.random.default_rng(seed)
    expected = np.exp(2.3 + rng.normal(0, 0.8, rows)[:, None] + rng.normal(0, 0.8, columns)[None, :])
    counts = rng.poisson(expected).ravel()
    areas = np.array([f"a{i:04d}" for i in range(rows)])
    topics = np.array([f"t{j:03d}" for j in range(columns)])
    cell = np.repeat(np.arange(rows * columns), counts)
    return pd.DataFrame({
        "person_id": np.arange(1, len(cell) + 1, dtype=np.int64),
        "area": areas[cell // columns],
        "topic": topics[cell % columns],
    })


@dataclass
class Row:
    kind: str
    rows: int
    columns: int
    events: int
    k: int
    plan: dict[str, Any]
    release_seconds: float
    floor_seconds: float
    read_seconds: float
    audit_seconds: float
    hidden: int
    exact: int


def _seconds(runner: DbtRunner, model: str, variables: dict[str, Any]) -> float:
    result = runner.run("run", "--select", model, "--vars", json.dumps(variables))
    if not result.ok:
        raise RuntimeError(f"dbt run of {model} failed:\n{result.output[-3000:]}")
    return result.execution_times()[model]


def run_case(kind: str, rows: int, columns: int, k: int, workdir: Path) -> Row:
    schema = "main" if kind == "duckdb" else "kanon_bench_table"
    duckdb_path = workdir / f"table_{rows}x{columns}.duckdb" if kind == "duckdb" else None
    if duckdb_path is not None and duckdb_path.exists():
        duckdb_path.unlink()
    relation = f"{schema}.table_events"
    fresh_postgres_schema(kind, schema)
    frame = events(rows, columns)
    _load(kind, duckdb_path, {relation: frame})
    project = workdir / "project"
    write_project(project)
    env = {"DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": kind, "KANON_SCHEMA": schema}
    if duckdb_path is not None:
        env["KANON_DUCKDB_PATH"] = str(duckdb_path)
    runner = DbtRunner(project, env=dict(os.environ, **env), target_path=workdir / f"target_{kind}",
                       log_path=workdir / "logs", timeout=None)
    variables = dict(project_vars({}), bench_k=k, bench_table_events=relation)
    runner.run("deps")
    setup = runner.run("run", "--select", "package:kanon,path:models/audit", "bench_table_events",
                       "--vars", json.dumps(variables))
    if not setup.ok:
        raise RuntimeError(f"dbt run of the audit trail and the events failed:\n{setup.output[-3000:]}")
    floor = _seconds(runner, "table_floor", variables)
    release = _seconds(runner, MODEL, variables)
    plan = _plan(kind, duckdb_path, schema, MODEL)
    # the attacker's audit, as `python -m kanon_tools attack --report table_release` runs it
    started = time.perf_counter()
    emitted = runner.run_operation("kanon.cli_table_cells", {"report": MODEL})
    read = time.perf_counter() - started
    started = time.perf_counter()
    cells, found = attack_report.audit(emitted)
    audit = time.perf_counter() - started
    hidden = sum(1 for cell in cells.values() if cell.value is None)
    exact = sum(1 for f in found if f.reason == "exact")
    return Row(kind, rows, columns, len(frame), k, plan, release, floor, read, audit, hidden, exact)


def markdown(rows: Sequence[Row], command: str) -> str:
    lines = [
        "# Tables with totals (kanon.release_table)", "",
        f"`{command}` on {machine()}. Each model in its own dbt invocation; times are dbt's execution time of "
        "the node. The floor counts the same cells and totals in a plain `create table as select`; the release "
        "is the whole k_anonymous release (cells, primary suppression, the search for secondaries, the gate's "
        "recount and no_exact_disclosure, audit trail, swap). The search's figures are from the release's plan "
        "in the audit trail. The LP audit is kanon_tools.attack on what the mart publishes (read s: "
        "`dbt run-operation kanon.cli_table_cells`, dbt's start included; audit s: the LPs).",
        "",
        "| warehouse | table | events | k | cells and totals | primaries | secondaries | rounds | search s "
        "| release s | floor s | read s | audit s | hidden audited | exact disclosures |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        p = r.plan
        lines.append(
            f"| {r.kind} | {r.rows:,} x {r.columns:,} | {r.events:,} | {r.k} | {p['cells']:,} | {p['primary']:,} "
            f"| {p['secondary']:,} | {p['rounds']} | {p['search_seconds']:.2f} | {r.release_seconds:.2f} "
            f"| {r.floor_seconds:.2f} | {r.read_seconds:.2f} | {r.audit_seconds:.2f} | {r.hidden:,} | {r.exact} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    if args.generate_only:
        _load("duckdb", Path(args.duckdb), {"main.table_events": events(args.rows, args.columns)})
        return 0
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    kinds = [kind.strip() for kind in args.warehouses.split(",") if kind.strip()]
    unknown = set(kinds) - {"duckdb", "postgres"}
    if unknown or not kinds:
        raise SystemExit(f"kanon bench-table: --warehouses takes duckdb and/or postgres, got {args.warehouses!r}")
    results = [run_case(kind, args.rows, args.columns, args.k, workdir) for kind in kinds]
    text = markdown(results, "python -m kanon_tools bench-table " + " ".join(sys.argv[2:]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 1 if any(r.exact for r in results) else 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench-table", help="what a table release with totals costs (BENCHMARKS.md)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=positive_count, default=1_000, help="rows of the table (default 1,000)")
    parser.add_argument("--columns", type=positive_count, default=100, help="columns of the table (default 100)")
    parser.add_argument("--k", type=positive_count, default=K, help=f"k (default {K})")
    parser.add_argument("--warehouses", default="duckdb", help="duckdb, postgres or both, comma-separated")
    parser.add_argument("--workdir", default="target/bench_table")
    parser.add_argument("--out", default="target/bench_table.md")
    parser.add_argument("--generate-only", action="store_true", help="write the events to --duckdb and stop")
    parser.add_argument("--duckdb", default="target/table.duckdb", help="with --generate-only")
    parser.set_defaults(func=run)
