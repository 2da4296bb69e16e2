"""`python -m kanon_tools bench-file`: what the file command costs (the targets: inspect and plan
within 5 s on 20,000 people, run within 120 s and 3,000 MB on 1,000,000).

It writes synthetic people as a CSV (bench_records.people, the record benchmark's: an id, age,
postal code, visit date, income, occupation and diagnosis, plus sex) and a kanon-records
configuration: the id dropped, six quasi-identifiers (age and income binned three ways, the
postal code by digit prefix, the visit date by month, quarter and year, occupation in a
three-level hierarchy given inline, sex), the diagnosis sensitive; k=5, l=2, 4 % budget. Then it
runs `kanon-records` as a user does, a process per command, each --repeats times:

  inspect   on --inspect-rows people (a proposal written to the work folder)
  plan      on the same file, with the configuration
  run       on --rows people, writing the released CSV

and reports each command's wall seconds (median, min-max) and its peak resident memory (the
process's VmHWM: Python, dbt and DuckDB all run in it). The working folder is kanon-records'
own (a new one per command); dbt's parsed project is cached between commands in a cache folder
of the benchmark's, as a user's ~/.cache/kanon is: a command's first repeat parses the project in
full (its vars are new), and its time is shown apart.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np

from kanon_tools.dbt_runner import run_process
from kanon_tools.dev.bench_records import hierarchies, people

KANON_RECORDS = str(Path(sys.executable).parent / "kanon-records")
# the targets: seconds and MB per command (None: no memory target)
TARGETS = {"inspect": (5.0, None), "plan": (5.0, None), "run": (120.0, 3000.0)}


def write_people(path: Path, n: int) -> Path:
    """n synthetic people as a CSV at `path`, and the configuration beside it (returned)."""
    frame = people(n)
    frame["sex"] = np.where(np.random.default_rng(3).random(n) < 0.5, "F", "M")
    frame["visit_date"] = frame["visit_date"].dt.strftime("%Y-%m-%d")
    frame.to_csv(path, index=False)
    # the bins of the record benchmark's release (bench_project/models/records/records_release.sql)
    config = {"k": 5, "l": 2, "max_suppression": 0.04, "columns": {
        "person_id": "drop",
        "age": {"role": "quasi_identifier", "type": "integer", "bins": [
            list(range(0, 100, 5)), list(range(0, 100, 10)), [0, 20, 40, 60, 80]]},
        "zip": {"role": "quasi_identifier", "prefix": [2, 1]},
        "visit_date": {"role": "quasi_identifier", "type": "date", "date": ["month", "quarter", "year"]},
        "income": {"role": "quasi_identifier", "type": "integer", "bins": [
            [*range(0, 100_000, 10_000), 100_000, 120_000, 140_000, 160_000, 180_000],
            [0, 20_000, 40_000, 60_000, 80_000, 100_000, 140_000, 180_000], [0, 40_000, 80_000, 140_000]]},
        "occupation": {"role": "quasi_identifier", "hierarchy": {"rows": hierarchies()["occupation"].values.tolist()}},
        "sex": "quasi_identifier",
        "diagnosis": "sensitive"}}
    config_path = path.with_suffix(".config.json")
    config_path.write_text(json.dumps(config))
    return config_path


def measure(command: str, argv: list[str], workdir: Path, repeats: int) -> dict[str, Any]:
    """`kanon-records <argv>` `repeats` times: wall seconds and peak MB of each run."""
    env = dict(os.environ, KANON_CACHE_DIR=str(workdir / "cache"))
    seconds, peaks = [], []
    for _ in range(repeats):
        finished = run_process([KANON_RECORDS, *argv], cwd=workdir, env=env, measure_rss=True)
        if finished.returncode != 0:
            raise SystemExit(f"kanon-records {command} exited {finished.returncode}:\n{finished.output[-3000:]}")
        seconds.append(finished.seconds)
        peaks.append(finished.peak_rss_mb or 0.0)
    return {"command": command, "seconds": seconds, "peak_mb": peaks}


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| command | rows | first s (full parse) | seconds, median (min-max) | peak MB, median | target | met |",
             "|---|---:|---:|---|---:|---|---|"]
    for row in rows:
        s, peak = row["seconds"], statistics.median(row["peak_mb"])
        limit, memory = TARGETS[row["command"]]
        target = f"{limit:g} s" + (f", {memory:,.0f} MB" if memory else "")
        met = statistics.median(s) <= limit and (memory is None or peak <= memory)
        spread = f"{statistics.median(s):.2f} ({min(s):.2f}-{max(s):.2f})"
        lines.append(f"| {row['command']} | {row['rows']:,} | {s[0]:.2f} | {spread} | {peak:,.0f} | {target} "
                     f"| {'yes' if met else 'no'} |")
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    small, large = workdir / f"people_{args.inspect_rows}.csv", workdir / f"people_{args.rows}.csv"
    small_config, large_config = write_people(small, args.inspect_rows), write_people(large, args.rows)
    rows = [
        {**measure("inspect", ["inspect", str(small), "--config-out", str(workdir / "proposed.json")],
                   workdir, args.repeats), "rows": args.inspect_rows},
        {**measure("plan", ["plan", str(small), "-c", str(small_config)], workdir, args.repeats),
         "rows": args.inspect_rows},
        {**measure("run", ["run", str(large), "-c", str(large_config), "-o", str(workdir / "released.csv")],
                   workdir, args.repeats), "rows": args.rows},
    ]
    text = markdown(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(f"`python -m kanon_tools bench-file --rows {args.rows} --inspect-rows "
                              f"{args.inspect_rows} --repeats {args.repeats}`\n\n{text}")
    print(text, end="")
    return 0
