"""`python -m kanon_tools demo`: what the example release published (kanon_tools.demo)."""

from __future__ import annotations

from typing import Any

from kanon_tools import demo
from kanon_tools.cli.types import positive_count
from kanon_tools.warehouse import TARGETS


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("demo", help="print what the example release published")
    parser.add_argument("--target", choices=TARGETS, default="duckdb")
    parser.add_argument("--rows", type=positive_count, default=14,
                        help="rows of the safe mart to show: a whole number >= 1 (default %(default)s)")
    parser.add_argument("--noisy-twin", action="store_true",
                        help="also show the flagship's noisy twin beside it "
                        "(built with dbt build --vars '{kanon_example_noise: true}', as make demo does)")
    # the example lives in the kanon project itself: dbt runs here, with the profile found as the CLI finds it
    parser.set_defaults(func=demo.run, project_dir=".", profiles_dir=None)
