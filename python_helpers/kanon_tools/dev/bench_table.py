"""`python -m kanon_tools bench-table`: what a table release with totals costs (the target: the
suppression and the attacker's audit each within one minute on DuckDB).

Through dbt, in the bench project (bench_project/models/table, real files), for each warehouse it
generates the events of a table (one event per person) whose cells' expected counts are a product
of one log-normal effect per dimension (sd 0.8 each), each cell's count Poisson around that, so
that about 20 % of all cells and totals hold 1 to k - 1 people, clustered in thin lines as in real
tables. Two shapes (--shape):

  2d  areas x topics (1,000 x 100 by default, --rows x --columns): 101,101 cells and totals,
      about 2.4 million events; the models table_floor, table_release;
  3d  areas x topics x 8 age bands (200 x 50 x 8 by default), the areas in districts of 10 by a
      hierarchy (area -> district -> total, written as a table too) and the others flat: 221 x 51
      x 9 = 101,439 cells, subtotals and totals, about 1.6 million events; the models table3_floor,
      table3_release.

Then it builds

  <table>_floor    the same cells and totals counted in one plain `create table as select`
                   (nothing hidden, nothing checked), and
  <table>_release  kanon.release_table over them with k, through the k_anonymous materialization
                   (primary suppression, the search for secondaries, the gate's recount and its
                   no_exact_disclosure check, audit trail, swap),

each in its own dbt invocation (dbt's execution time of the node). From the release's plan in the
audit trail: cells, primaries, secondaries, rounds and the search's own seconds. Then the attacker's
LP audit on what was published, by attack_report's code path: the mart read through `dbt
run-operation kanon.cli_table_cells` (timed apart: dbt's start and the JSON), and
kanon_tools.attack_report.audit on it (timed), which must find 0 exact disclosures.

`--generate-only --duckdb FILE` writes the shape's events (and hierarchy) of --rows x --columns
leaves and stops (what `make lint` compiles the bench project against).
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
from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.dev.bench import ROOT, machine, project_vars, write_project
from kanon_tools.dev.bench_records import fresh_postgres_schema, last_release_plan, load_frames

SEED = 12
Dimension = tuple[str, np.ndarray[Any, Any]]  # a column and its leaves' labels


@dataclass(frozen=True)
class Shape:
    """A benchmark table: its name (the prefix of its tables, models and var), default leaves of
    area and topic, the log of a cell's expected count before the effects, the age bands of a
    third flat dimension (0: none) and the areas per district (0: area flat)."""

    name: str
    rows: int
    columns: int
    mean: float
    bands: int = 0
    district: int = 0

    @property
    def events_model(self) -> str:
        return f"bench_{self.name}_events"

    def dimensions(self, rows: int, columns: int) -> list[Dimension]:
        """Each dimension's column and leaves, in the table's order."""
        out: list[Dimension] = [("area", np.array([f"a{i:04d}" for i in range(rows)])),
                                ("topic", np.array([f"t{j:03d}" for j in range(columns)]))]
        if self.bands:
            out.append(("age_band", np.array([f"b{i}" for i in range(self.bands)])))
        return out

    def describe(self, rows: int, columns: int) -> str:
        sizes = " x ".join(f"{len(leaves):,}" for _, leaves in self.dimensions(rows, columns))
        return sizes + (f" ({-(-rows // self.district):,} districts)" if self.district else "")

    def tables(self, rows: int, columns: int, schema: str) -> dict[str, pd.DataFrame]:
        """What the generator writes, by relation: the events and, with districts, area's hierarchy."""
        dimensions = self.dimensions(rows, columns)
        full = [len(leaves) for _, leaves in self.dimensions(self.rows, self.columns)]
        out = {f"{schema}.{self.name}_events": events(dimensions, self.mean, full)}
        if self.district:
            areas = dimensions[0][1]
            out[f"{schema}.{self.name}_events_hierarchy_area"] = pd.DataFrame({
                "level_0": areas, "level_1": [f"d{i // self.district:03d}" for i in range(len(areas))], "level_2": "*"})
        return out


# 2-D: exp(2.3 + a + b), about 20 % of the cells below 5, a few % empty, 24 events per cell.
# 3-D: exp(1.6 + a + b + c), 20.4 % of cells, subtotals and totals below 5, 4.6 % empty.
SHAPES = {"2d": Shape("table", 1_000, 100, 2.3), "3d": Shape("table3", 200, 50, 1.6, bands=8, district=10)}


def events(dimensions: Sequence[Dimension], mean: float, full: Sequence[int], seed: int = SEED) -> pd.DataFrame:
    """One event per person, in the leaf cells of a table; the same for a seed everywhere.

    A cell's expected count is exp(mean + the sum of its leaves' effects), one effect per leaf of
    each dimension, normal with sd 0.8; its count Poisson around that. The effects are drawn for
    the `full` table's leaves (per dimension), a smaller table having the first of them: so it has
    the same mix of thin and thick lines (about as many cells below k) as the full one."""
    rng = np.random.default_rng(seed)
    sizes = tuple(len(leaves) for _, leaves in dimensions)
    log = np.full(sizes, mean)
    for axis, (size, drawn) in enumerate(zip(sizes, full, strict=True)):
        effects = rng.normal(0, 0.8, max(size, drawn))[:size]
        log = log + effects.reshape([size if a == axis else 1 for a in range(len(sizes))])
    counts = rng.poisson(np.exp(log)).ravel()
    cell = np.unravel_index(np.repeat(np.arange(counts.size), counts), sizes)
    return pd.DataFrame({"person_id": np.arange(1, len(cell[0]) + 1, dtype=np.int64),
                         **{name: leaves[index] for (name, leaves), index in zip(dimensions, cell, strict=True)}})


@dataclass
class Row:
    kind: str
    table: str
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


def run_case(kind: str, shape: Shape, rows: int, columns: int, k: int, workdir: Path) -> Row:
    schema = "main" if kind == "duckdb" else f"kanon_bench_{shape.name}"
    duckdb_path = workdir / f"{shape.name}_{rows}x{columns}.duckdb" if kind == "duckdb" else None
    if duckdb_path is not None and duckdb_path.exists():
        duckdb_path.unlink()
    fresh_postgres_schema(kind, schema)
    tables = shape.tables(rows, columns, schema)
    load_frames(kind, duckdb_path, tables)
    project = workdir / "project"
    write_project(project)
    env = {"DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": kind, "KANON_SCHEMA": schema}
    if duckdb_path is not None:
        env["KANON_DUCKDB_PATH"] = str(duckdb_path)
    runner = DbtRunner(project, env=dict(os.environ, **env), target_path=workdir / f"target_{kind}",
                       log_path=workdir / "logs", timeout=None)
    variables = dict(project_vars({}), bench_k=k, **{shape.events_model: f"{schema}.{shape.name}_events"})
    sources = [shape.events_model] + ([f"bench_{shape.name}_hierarchy_area"] if shape.district else [])
    runner.run("deps")
    setup = runner.run("run", "--select", "package:kanon,path:models/audit", *sources, "--vars", json.dumps(variables))
    if not setup.ok:
        raise RuntimeError(f"dbt run of the audit trail and the events failed:\n{setup.output[-3000:]}")
    model = f"{shape.name}_release"
    floor = _seconds(runner, f"{shape.name}_floor", variables)
    release = _seconds(runner, model, variables)
    plan = last_release_plan(kind, duckdb_path, schema, model)
    # the attacker's audit, as `python -m kanon_tools attack --report <model>` runs it
    started = time.perf_counter()
    emitted = runner.run_operation("kanon.cli_table_cells", {"report": model})
    read = time.perf_counter() - started
    started = time.perf_counter()
    cells, found = attack_report.audit(emitted)
    audit = time.perf_counter() - started
    hidden = sum(1 for cell in cells.values() if cell.value is None)
    exact = sum(1 for f in found if f.reason == "exact")
    n_events = len(next(iter(tables.values())))
    return Row(kind, shape.describe(rows, columns), n_events, k, plan, release, floor, read, audit, hidden, exact)


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
            f"| {r.kind} | {r.table} | {r.events:,} | {r.k} | {p['cells']:,} | {p['primary']:,} "
            f"| {p['secondary']:,} | {p['rounds']} | {p['search_seconds']:.2f} | {r.release_seconds:.2f} "
            f"| {r.floor_seconds:.2f} | {r.read_seconds:.2f} | {r.audit_seconds:.2f} | {r.hidden:,} | {r.exact} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    shape = SHAPES[args.shape]
    rows, columns = args.rows or shape.rows, args.columns or shape.columns
    if args.generate_only:
        load_frames("duckdb", Path(args.duckdb), shape.tables(rows, columns, "main"))
        return 0
    workdir = Path(args.workdir).resolve()  # dbt runs in the project, where a relative path means nothing
    workdir.mkdir(parents=True, exist_ok=True)
    kinds = [kind.strip() for kind in args.warehouses.split(",") if kind.strip()]
    unknown = set(kinds) - {"duckdb", "postgres"}
    if unknown or not kinds:
        raise SystemExit(f"kanon bench-table: --warehouses takes duckdb and/or postgres, got {args.warehouses!r}")
    results = [run_case(kind, shape, rows, columns, args.k, workdir) for kind in kinds]
    text = markdown(results, "python -m kanon_tools bench-table " + " ".join(sys.argv[2:]))
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)
    return 1 if any(r.exact for r in results) else 0
