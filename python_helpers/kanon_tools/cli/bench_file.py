"""`python -m kanon_tools bench-file`: what the file command costs (kanon_tools.dev.bench_file)."""

from __future__ import annotations

import argparse
from typing import Any

from kanon_tools.cli.types import positive_count
from kanon_tools.dev import bench_file


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench-file", help="what the file command costs (BENCHMARKS.md)",
                                   description=bench_file.__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=positive_count, default=1_000_000, help="people for run (default 1,000,000)")
    parser.add_argument("--inspect-rows", type=positive_count, default=20_000,
                        help="people for inspect and plan (default 20,000)")
    parser.add_argument("--repeats", type=positive_count, default=3)
    parser.add_argument("--workdir", default="target/bench_file")
    parser.add_argument("--out", default="target/bench_file.md")
    parser.set_defaults(func=bench_file.run)
