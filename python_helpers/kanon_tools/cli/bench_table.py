"""`python -m kanon_tools bench-table`: what a table release with totals costs (kanon_tools.dev.bench_table)."""

from __future__ import annotations

import argparse
from typing import Any

from kanon_tools.cli.types import positive_count
from kanon_tools.dev import bench, bench_table


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench-table", help="what a table release with totals costs (BENCHMARKS.md)",
                                   description=bench_table.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(bench_table.SHAPES), default="2d",
                        help="2d: areas x topics; 3d: areas (in districts) x topics x age bands (default 2d)")
    parser.add_argument("--rows", type=positive_count, help="areas (default 1,000; 3d: 200)")
    parser.add_argument("--columns", type=positive_count, help="topics (default 100; 3d: 50)")
    parser.add_argument("--k", type=positive_count, default=bench.K, help=f"k (default {bench.K})")
    parser.add_argument("--warehouses", default="duckdb", help="duckdb, postgres or both, comma-separated")
    parser.add_argument("--workdir", default="target/bench_table")
    parser.add_argument("--out", default="target/bench_table.md")
    parser.add_argument("--generate-only", action="store_true", help="write the events to --duckdb and stop")
    parser.add_argument("--duckdb", default="target/table.duckdb", help="with --generate-only")
    parser.set_defaults(func=bench_table.run)
