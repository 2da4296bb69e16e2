"""`python -m kanon_tools bench-spark`: the three release kinds on Spark (kanon_tools.dev.bench_spark)."""

from __future__ import annotations

import argparse
from typing import Any

from kanon_tools.cli.bench import memory_size
from kanon_tools.cli.types import choice_list, positive_count
from kanon_tools.dev import bench_spark

# `--releases`: some of RELEASE_MODELS, comma-separated
release_models = choice_list(bench_spark.RELEASE_MODELS)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench-spark", help="the three release kinds on Spark (BENCHMARKS.md)",
                                   description=bench_spark.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=positive_count, default=20_000, help="events of the count release")
    parser.add_argument("--people", type=positive_count, default=3_000, help="people of the record release")
    parser.add_argument("--rows", type=positive_count, default=6, help="areas of the table with totals")
    parser.add_argument("--columns", type=positive_count, default=4, help="topics of the table with totals")
    parser.add_argument("--repeats", type=positive_count, default=3, help="dbt runs per release (default 3)")
    parser.add_argument("--cores", type=positive_count, default=2, help="Spark's local[N] (default 2)")
    parser.add_argument("--memory", type=memory_size, default="2g",
                        help="the driver's memory, all of Spark's in local mode (default 2g)")
    parser.add_argument("--cluster", action="store_true",
                        help="on a standalone cluster started for the run (two workers of one core, --memory "
                             "each, and a Spark Connect server: make spark-cluster), not local[N]")
    parser.add_argument("--releases", type=release_models, default=list(bench_spark.DEFAULT_RELEASES),
                        help="which releases, comma-separated, of " + ",".join(bench_spark.RELEASE_MODELS)
                             + " (default the three small targets: " + ",".join(bench_spark.DEFAULT_RELEASES) + ")")
    parser.add_argument("--workdir", default="target/bench_spark")
    parser.add_argument("--out", default="target/bench_spark.md")
    parser.add_argument("--quiet", action="store_true")
    parser.set_defaults(func=bench_spark.run)
