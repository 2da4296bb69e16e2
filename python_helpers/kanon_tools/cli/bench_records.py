"""`python -m kanon_tools bench-records`: what a record release costs (kanon_tools.dev.bench_records)."""

from __future__ import annotations

import argparse
from typing import Any

from kanon_tools.cli.types import choice_list, count_list, positive_count
from kanon_tools.dev import bench_records

# `--losses`: loss metrics, comma-separated, each one kanon searches by
loss_list = choice_list(bench_records.LOSSES)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench-records", help="what a record release costs (BENCHMARKS.md)",
                                   description=bench_records.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=count_list(), default=[100_000, 1_000_000], help="DuckDB sizes, e.g. 1M,10M")
    parser.add_argument("--postgres-sizes", type=count_list(), default=[100_000], help="Postgres sizes, e.g. 1M")
    parser.add_argument("--warehouses", default="duckdb,postgres", help="for Adult: where to run it")
    parser.add_argument("--no-adult", dest="adult", action="store_false", help="skip Adult and anjana")
    parser.add_argument("--losses", type=loss_list, default=["non_uniform_entropy"],
                        help="for Adult: the loss metrics searched, comma-separated among non_uniform_entropy, "
                             "discernibility, height (default non_uniform_entropy)")
    parser.add_argument("--repeats", type=positive_count, default=1)
    parser.add_argument("--workdir", default="target/bench_records")
    parser.add_argument("--out", default="target/bench_records.md")
    parser.add_argument("--generate-only", type=positive_count, default=None, metavar="N")
    parser.add_argument("--duckdb", default="target/records.duckdb", help="with --generate-only")
    parser.set_defaults(func=bench_records.run)
