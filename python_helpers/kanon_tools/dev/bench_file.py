"""`python -m kanon_tools bench-file`: what the file command costs (the targets: inspect and plan
within 5 s on 20,000 people, run within 120 s and 3,000 MB on 1,000,000).

It writes synthetic residents as a CSV shaped like the files people bring: an id, a
birth date, the age it gives, sex, a 7-digit postal code (`NNN-NNNN`, about two thirds of a
million distinct values in a million rows), the prefecture the code lies in and an annual income;
and a kanon-records configuration like the one `inspect` proposes for it: the id dropped, five
quasi-identifiers (the postal code by digit prefix 3 then 1, a hierarchy built from the file's
own values; the birth date by month and year; the age in bins of 10, 20 and 40 years; the
prefecture by region, the built-in hint pack's hierarchy given inline; sex), the income
sensitive; k=5, l=2, 4 % budget. Then it runs `kanon-records` as a user does, a process per
command, each --repeats times:

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
import pandas as pd

from kanon_tools.dbt_runner import run_process
from kanon_tools.records.hints import builtin_pack

KANON_RECORDS = str(Path(sys.executable).parent / "kanon-records")
# the targets: seconds and MB per command (None: no memory target)
TARGETS = {"inspect": (5.0, None), "plan": (5.0, None), "run": (120.0, 3000.0)}


SEED = 49
# postal codes' first three digits per prefecture: two each, so that a code's prefecture is a
# function of it (as in Japan) and the four digits after it make most codes of a big file distinct
PREFIXES_PER_PREFECTURE = 2
AS_OF = pd.Timestamp("2025-04-01")


def residents(n: int, seed: int = SEED) -> pd.DataFrame:
    """n synthetic residents (the columns above), the same for a seed; every value text."""
    rng = np.random.default_rng(seed)
    prefectures = [row[0] for row in builtin_pack().hierarchies["prefecture_region"]]
    prefixes = rng.choice(np.arange(100, 1000), PREFIXES_PER_PREFECTURE * len(prefectures), replace=False)
    area = rng.integers(0, len(prefixes), n)
    birth = pd.Series(pd.Timestamp("1935-01-01") + pd.to_timedelta(rng.integers(0, 72 * 365, n), unit="D"))
    # completed years on AS_OF: whole calendar years, less one where the birthday is still to come
    years = AS_OF.year - birth.dt.year - (birth.dt.month * 100 + birth.dt.day > AS_OF.month * 100 + AS_OF.day)
    return pd.DataFrame({
        "住民番号": [f"R{i:07d}" for i in range(1, n + 1)],
        "生年月日": birth.dt.strftime("%Y-%m-%d"),
        "年齢": years.astype(str),
        "性別": np.where(rng.random(n) < 0.5, "女", "男"),
        "郵便番号": [f"{p:03d}-{s:04d}" for p, s in zip(prefixes[area], rng.integers(0, 10_000, n), strict=True)],
        "都道府県": np.array(prefectures)[area // PREFIXES_PER_PREFECTURE],
        "年収": (np.clip(rng.lognormal(8.2, 0.5, n), 0, 30_000).astype(np.int64) * 1000).astype(str),
    })


def write_people(path: Path, n: int) -> tuple[Path, str]:
    """n synthetic residents as a CSV at `path`, and the configuration beside it: its path, and a
    line saying what the file holds (the distinct values that size the prefix hierarchy)."""
    frame = residents(n)
    frame.to_csv(path, index=False)
    shape = (f"{n:,} people, 郵便番号 {frame['郵便番号'].nunique():,} distinct values (prefix 3, 1), "
             f"生年月日 {frame['生年月日'].nunique():,} (month, year), 年齢 in bins, 都道府県 by region, 性別; "
             f"年収 sensitive ({frame['年収'].nunique():,} distinct), k=5, l=2, 4 % budget")
    # what inspect proposes for these columns (the built-in pack's generalizers)
    config = {"k": 5, "l": 2, "max_suppression": 0.04, "columns": {
        "住民番号": "drop",
        "生年月日": {"role": "quasi_identifier", "type": "date", "date": ["month", "year"]},
        "年齢": {"role": "quasi_identifier", "type": "integer", "bins": [
            list(range(0, 100, 10)), [0, 20, 40, 60, 80], [0, 40, 80]]},
        "性別": "quasi_identifier",
        "郵便番号": {"role": "quasi_identifier", "prefix": [3, 1]},
        "都道府県": {"role": "quasi_identifier", "hierarchy": {
            "rows": [list(row) for row in builtin_pack().hierarchies["prefecture_region"]]}},
        "年収": "sensitive"}}
    config_path = path.with_suffix(".config.json")
    config_path.write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return config_path, shape


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
    (small_config, _), (large_config, shape) = write_people(small, args.inspect_rows), write_people(large, args.rows)
    rows = [
        {**measure("inspect", ["inspect", str(small), "--config-out", str(workdir / "proposed.json")],
                   workdir, args.repeats), "rows": args.inspect_rows},
        {**measure("plan", ["plan", str(small), "-c", str(small_config)], workdir, args.repeats),
         "rows": args.inspect_rows},
        {**measure("run", ["run", str(large), "-c", str(large_config), "-o", str(workdir / "released.csv")],
                   workdir, args.repeats), "rows": args.rows},
    ]
    text = f"run's file: {shape}\n\n" + markdown(rows)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(f"`python -m kanon_tools bench-file --rows {args.rows} --inspect-rows "
                              f"{args.inspect_rows} --repeats {args.repeats}`\n\n{text}", encoding="utf-8")
    print(text, end="")
    return 0
