"""`python -m kanon_tools bench-records` (part of `make bench`): what a record release costs.

Through dbt, in the bench project (bench_project/models/records, real files), for each warehouse
and size it generates synthetic people (five quasi-identifiers of depth 3 to 4: age binned three
ways, a postal code in a three-level hierarchy, a visit date by month, quarter and year, income
binned three ways, an occupation in a three-level hierarchy; a 2,000-node lattice) and builds

  records_floor    a plain `create table as select` of the same rows (the floor), and
  records_release  kanon.release_records over them, k=5, 4 % budget, through the k_anonymous
                   materialization (search, shuffled output, gate's recount, audit, swap),

each in its own dbt invocation, `repeats` times: dbt's own execution time of the node, and the dbt
process's peak memory (DuckDB runs inside it). From the audit trail: nodes evaluated, the seconds
of the scan into the class table and of the search on it.

With the Adult data set (../shared/datasets/adult, or KANON_ADULT_DIR) it does the same for Adult
with all nine columns as quasi-identifiers (12,960 nodes), and runs anjana's greedy k-anonymizer
on the same data for its time and loss, scored with kanon_tools.dev.records_reference's metrics.

`--generate-only N --duckdb FILE` writes N synthetic people and their hierarchies and stops (what
`make lint` compiles the bench project against).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.dev import adult as adult_data
from kanon_tools.dev.bench import ROOT, K, label, machine, project_vars, write_project
from kanon_tools.warehouse import postgres_params

SEED = 16
OCCUPATIONS = 40


def people(n: int, seed: int = SEED) -> pd.DataFrame:
    """n synthetic people, the same for a seed on every warehouse."""
    rng = np.random.default_rng(seed)
    zips = [f"{r}{d}{c:03d}" for r in range(1, 10) for d in range(10) for c in range(0, 1000, 90)]
    return pd.DataFrame({
        "person_id": np.arange(1, n + 1, dtype=np.int64),
        "age": np.clip(rng.normal(42, 18, n).round(), 0, 99).astype(np.int64),
        "zip": rng.choice(np.array(zips), n),
        "visit_date": pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 731, n), unit="D"),
        "income": np.clip(rng.lognormal(10.6, 0.6, n), 0, 199_999).astype(np.int64),
        "occupation": [f"occ{o:02d}" for o in rng.zipf(1.6, n) % OCCUPATIONS],
        "diagnosis": rng.choice(np.array([f"dx{i}" for i in range(12)]), n),
    })


def hierarchies() -> dict[str, pd.DataFrame]:
    """The postal code and occupation hierarchies (kanon's format)."""
    zips = [f"{r}{d}{c:03d}" for r in range(1, 10) for d in range(10) for c in range(0, 1000, 90)]
    return {
        "zip": pd.DataFrame({"level_0": zips, "level_1": [z[:2] + "***" for z in zips],
                             "level_2": [z[:1] + "****" for z in zips], "level_3": "*"}),
        "occupation": pd.DataFrame({"level_0": [f"occ{o:02d}" for o in range(OCCUPATIONS)],
                                    "level_1": [f"group{o // 5}" for o in range(OCCUPATIONS)],
                                    "level_2": [f"sector{o // 15}" for o in range(OCCUPATIONS)], "level_3": "*"}),
    }


def connect(kind: str, duckdb_path: Path | None) -> Any:
    if kind == "duckdb":
        import duckdb

        return duckdb.connect(str(duckdb_path))
    import psycopg2

    return psycopg2.connect(**postgres_params())


def load_frames(kind: str, duckdb_path: Path | None, tables: dict[str, pd.DataFrame]) -> None:
    """Write frames as tables (replacing them): DuckDB from the frame, Postgres by COPY."""
    conn = connect(kind, duckdb_path)
    try:
        cur = conn if kind == "duckdb" else conn.cursor()  # a DuckDB cursor would not see the registered frame
        for name, frame in tables.items():
            cur.execute(f"drop table if exists {name}")
            if kind == "duckdb":
                conn.register("_frame", frame)
                cur.execute(f"create table {name} as select * from _frame")
                conn.unregister("_frame")
                continue
            columns = ", ".join(f"{c} {_pg_type(frame[c])}" for c in frame.columns)
            cur.execute(f"create table {name} ({columns})")
            buffer = io.StringIO()
            frame.to_csv(buffer, index=False, header=False)
            buffer.seek(0)
            cur.copy_expert(f"copy {name} from stdin with (format csv)", buffer)
        conn.commit()
    finally:
        conn.close()


def _pg_type(column: pd.Series) -> str:
    if pd.api.types.is_integer_dtype(column):
        return "bigint"
    if pd.api.types.is_datetime64_any_dtype(column):
        return "date"
    return "text"


def write_records(kind: str, n: int, duckdb_path: Path | None, relation: str) -> None:
    tables = {relation: people(n)}
    for name, frame in hierarchies().items():
        tables[f"{relation}_hierarchy_{name}"] = frame
    load_frames(kind, duckdb_path, tables)


def write_adult(kind: str, duckdb_path: Path | None, relation: str) -> adult_data.AdultData:
    adult = adult_data.load()
    tables = {relation: adult.data}
    for column, frame in adult.hierarchy_tables.items():
        tables[f"{relation}_hierarchy_{column}"] = frame
    load_frames(kind, duckdb_path, tables)
    return adult


@dataclass
class Row:
    kind: str
    what: str
    records: int
    release: list[float]
    floor: list[float]
    peak_mb: float | None
    plan: dict[str, Any]
    anjana: adult_data.AnjanaRun | None = None
    searches: list[float] | None = None
    statements: list[int] | None = None

    @property
    def search(self) -> float:
        return statistics.median(self.searches) if self.searches else float(self.plan.get("search_seconds", 0))

    @property
    def ratio(self) -> float:
        return statistics.median(self.release) / statistics.median(self.floor)


def last_release_plan(kind: str, duckdb_path: Path | None, schema: str, model: str) -> dict[str, Any]:
    conn = connect(kind, duckdb_path)
    try:
        cur = conn.cursor()
        cur.execute(f"select release_plan from {schema}_kanon_audit.kanon_audit_releases where report = '{model}' "
                    "and status = 'RELEASED' order by released_at desc limit 1")
        return dict(json.loads(cur.fetchone()[0]))
    finally:
        conn.close()


def _time(runner: DbtRunner, model: str, variables: dict[str, Any], repeats: int,
          after: Callable[[], None] | None = None) -> tuple[list[float], float | None]:
    times, peak = [], None
    for _ in range(repeats):
        result = runner.run("run", "--select", model, "--vars", json.dumps(variables), measure_rss=True)
        if not result.ok:
            raise RuntimeError(f"dbt run of {model} failed:\n{result.output[-3000:]}")
        times.append(result.execution_times()[model])
        peak = max(peak or 0.0, result.peak_rss_mb or 0.0)
        if after is not None:
            after()
    return times, peak


def statements_of_last_run(log: Path, model: str) -> int:
    """How many statements dbt logged for the last run of `model` (its debug log, dbt.log)."""
    lines = log.read_text(errors="replace").splitlines()
    began = max(i for i, line in enumerate(lines)
                if "Began running node" in line and line.rstrip().endswith(f".{model}"))
    count = 0
    for line in lines[began:]:
        if "Finished running node" in line:
            break
        count += "SQL status:" in line
    return count


def fresh_postgres_schema(kind: str, schema: str) -> None:
    """On Postgres, an empty `schema` for a benchmark's data, and no audit trail beside it."""
    if kind != "postgres":
        return
    conn = connect(kind, None)
    conn.cursor().execute(f"drop schema if exists {schema} cascade; "
                          f"drop schema if exists {schema}_kanon_audit cascade; create schema {schema}")
    conn.commit()
    conn.close()


def run_case(kind: str, what: str, size: int, repeats: int, workdir: Path, loss: str = "non_uniform_entropy") -> Row:
    schema = "main" if kind == "duckdb" else f"kanon_bench_records_{what}"
    duckdb_path = workdir / f"records_{what}_{label(size)}.duckdb" if kind == "duckdb" else None
    relation = f"{schema}.{what}"
    fresh_postgres_schema(kind, schema)
    adult = write_adult(kind, duckdb_path, relation) if what == "adult" else None
    if adult is None:
        write_records(kind, size, duckdb_path, relation)
    project = workdir / "project"
    write_project(project)
    env = {"DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": kind, "KANON_SCHEMA": schema}
    if duckdb_path is not None:
        env["KANON_DUCKDB_PATH"] = str(duckdb_path)
    runner = DbtRunner(project, env=dict(os.environ, **env), target_path=workdir / f"target_{kind}_{what}",
                       log_path=workdir / "logs", timeout=None)
    variables = dict(project_vars({}), bench_records=relation, bench_adult=relation if adult else None, bench_loss=loss)
    runner.run("deps")
    prefix = "adult" if adult else "records"
    sources = [] if adult else ["bench_records", "bench_records_hierarchy_zip", "bench_records_hierarchy_occupation"]
    runner.run("run", "--select", "package:kanon,path:models/audit", *sources, "--vars", json.dumps(variables))
    floor, _ = _time(runner, f"{prefix}_floor", variables, repeats)
    plans: list[dict[str, Any]] = []
    statements: list[int] = []

    def after_release() -> None:
        plans.append(last_release_plan(kind, duckdb_path, schema, f"{prefix}_release"))
        statements.append(statements_of_last_run(workdir / "logs" / "dbt.log", f"{prefix}_release"))

    release, peak = _time(runner, f"{prefix}_release", variables, repeats, after_release)
    anjana = (adult_data.anjana_run(K, 0.04, adult=adult)
              if adult is not None and kind == "duckdb" and loss == "non_uniform_entropy" else None)
    return Row(kind, what, size, release, floor, peak, plans[-1], anjana,
               searches=[float(p.get("search_seconds", 0)) for p in plans], statements=statements)


def markdown(rows: Sequence[Row], command: str) -> str:
    lines = [
        "# Record releases (kanon.release_records)", "",
        f"`{command}` on {machine()}. Each model in its own dbt invocation; times are dbt's execution time "
        "of the node (median of the repeats). The floor is a plain `create table as select` of the same rows; "
        "the release is the whole k_anonymous release (search, shuffled output, the gate's recount, audit, "
        "swap). k=5, budget 4 % of the records; the search's own figures are from the release's plan in "
        "the audit trail (scan: the one pass into the class table; search: from the class table to the chosen node).",
        "",
        "| warehouse | data | loss | records | lattice | nodes evaluated | statements | scan s | search s | release s "
        "| floor s | release / floor | peak MB | chosen node | loss (non-uniform entropy) | suppressed |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|",
    ]
    for r in rows:
        p = r.plan
        node = ", ".join(f"{c} {lv}" for c, lv in p["node"].items())
        suppressed = p["records_in"] - p["records_out"]
        lines.append(
            f"| {r.kind} | {r.what} | {p['metric']} | {r.records:,} | {p['lattice_size']:,} | {p['nodes_evaluated']:,} "
            f"| {statistics.median(r.statements) if r.statements else 0:,.0f} "
            f"| {p.get('scan_seconds', 0):.2f} | {r.search:.2f} | {statistics.median(r.release):.2f} "
            f"| {statistics.median(r.floor):.2f} | {r.ratio:.1f} | {r.peak_mb or 0:.0f} | {node} "
            f"| {p['loss']['non_uniform_entropy']:,.0f} | {suppressed:,} |")
    for r in rows:
        if r.anjana is None:
            continue
        a = r.anjana
        lines += [
            "",
            f"anjana {_anjana_version()} on the same Adult data (k=5, 4 %, greedy: one column at a time), "
            "in this process: "
            f"{a.seconds:.2f} s; node {', '.join(f'{c} {lv}' for c, lv in a.levels.items())}; non-uniform entropy "
            f"{a.node.non_uniform_entropy:,.0f}, discernibility {a.node.discernibility:,}, height {a.node.height}; "
            f"{a.suppressed_records:,} records suppressed. kanon: non-uniform entropy "
            f"{r.plan['loss']['non_uniform_entropy']:,.0f}, discernibility {r.plan['loss']['discernibility']:,.0f}, "
            f"height {r.plan['loss']['height']:.0f}, search {r.search:.2f} s.",
        ]
    return "\n".join(lines) + "\n"


def _anjana_version() -> str:
    from importlib.metadata import version

    return version("anjana")


LOSSES = ("non_uniform_entropy", "discernibility", "height")


def run(args: argparse.Namespace) -> int:
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if args.generate_only:
        write_records("duckdb", args.generate_only, Path(args.duckdb), "main.records")
        return 0
    rows: list[Row] = []
    if args.adult and adult_data.adult_dir() is not None:
        for loss in args.losses:
            for kind in ("duckdb", "postgres"):
                if kind in args.warehouses:
                    rows.append(run_case(kind, "adult", 30_162, args.repeats, workdir, loss))
    for size in args.sizes:
        rows.append(run_case("duckdb", "records", size, args.repeats, workdir))
    for size in args.postgres_sizes:
        rows.append(run_case("postgres", "records", size, args.repeats, workdir))
    text = markdown(rows, "python -m kanon_tools bench-records " + " ".join(sys.argv[2:]))
    Path(args.out).write_text(text)
    print(text)
    return 0
