"""`python -m kanon_tools bench` (`make bench`): release cost against the bare aggregate
(kanon_tools.dev.bench)."""

from __future__ import annotations

import argparse
import re
from typing import Any

from kanon_tools.cli.types import count_list, positive_count
from kanon_tools.dev import bench, generate

# Sizes are event counts for the generator: at least the loans it plants (below that it refuses).
event_sizes = count_list(generate.PLANTED_EVENTS, " (the generator's planted loans)", what="event counts")


def memory_size(text: str) -> str:
    """An argparse type: a JVM memory size such as 2g or 512m (it reaches Spark's -Xmx)."""
    if not re.fullmatch(r"[1-9][0-9]*[mMgG]", text.strip()):
        raise argparse.ArgumentTypeError(
            f"must be a whole number of megabytes or gigabytes, such as 2g or 512m; got {text!r}")
    return text.strip().lower()


def report_list(text: str) -> list[str]:
    """An argparse type: comma-separated report names (thin, thinner, dense)."""
    names = [item.strip() for item in text.split(",") if item.strip()]
    unknown = [name for name in names if name not in bench.REPORTS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"must be comma-separated reports among {', '.join(bench.REPORTS)}; got {text!r}")
    return [report for report in bench.REPORTS if report in names]  # the report's order, each once


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="time releases against the bare aggregate (writes BENCHMARKS.md)")
    floor = generate.PLANTED_EVENTS
    parser.add_argument("--sizes", type=event_sizes, default="1M,10M",
                        help=f"DuckDB sizes in events, comma-separated (1M, 10M, 200k, ...), each >= {floor}; "
                             "'' for none (default %(default)s)")
    parser.add_argument("--big", action="store_true", help="add 50M and 100M events on DuckDB")
    parser.add_argument("--postgres-sizes", type=event_sizes, default="1M",
                        help=f"Postgres sizes, as --sizes, each >= {floor}; '' for none (default %(default)s)")
    parser.add_argument("--spark-sizes", type=event_sizes, default="",
                        help=f"Spark sizes, as --sizes, each >= {floor} (default none: Spark runs only when asked)")
    parser.add_argument("--spark-big", action="store_true", help="add 100M events on Spark")
    parser.add_argument("--repeats", type=positive_count, default=3,
                        help="DuckDB runs per model: a whole number >= 1 (default %(default)s)")
    parser.add_argument("--postgres-repeats", type=positive_count, default=1,
                        help="Postgres runs per model, >= 1 (default %(default)s; its release is slow: "
                             "see BENCHMARKS.md)")
    parser.add_argument("--spark-repeats", type=positive_count, default=1,
                        help="Spark runs per model, >= 1 (default %(default)s)")
    parser.add_argument("--spark-cores", type=positive_count, default=2,
                        help="Spark's local[N]: cores for dbt's Spark (default %(default)s)")
    parser.add_argument("--spark-memory", type=memory_size, default="2g",
                        help="Spark's driver memory, which in local mode is all of Spark's: 2g, 8g, ... "
                             "(default %(default)s)")
    parser.add_argument("--spark-reports", type=report_list, default=list(bench.REPORTS),
                        help=f"reports timed on Spark, comma-separated among {', '.join(bench.REPORTS)} (default all)")
    parser.add_argument("--spark-cluster", action="store_true",
                        help="Spark on a standalone cluster started for each size (two workers of one core, "
                             "--spark-memory each, and a Spark Connect server: make spark-cluster), not local[N]")
    parser.add_argument("--spark-engine", action="store_true",
                        help="on Spark also time engine_ and recount_ (one more dbt run each per report)")
    parser.add_argument("--workdir", default="bench_out", help="scratch folder (databases, dbt project)")
    parser.add_argument("--out", default="BENCHMARKS.md")
    parser.add_argument("--plot", default="benchmarks.png", help="PNG plot path ('' for none)")
    parser.add_argument("--no-python", action="store_true", help="skip the fetch-into-Python baseline")
    parser.add_argument("--no-memory", action="store_true",
                        help="DuckDB and Postgres: run dbt in this process, without a process start per run, "
                             "and leave peak memory out (–); Spark always runs dbt as a process")
    parser.add_argument("--quiet", action="store_true")
    parser.set_defaults(func=bench.run)
