"""The command line of kanon-tools: `python -m kanon_tools <command>` (the `kanon-tools` script)
and `kanon-records` (the `records` command on its own).

One module per command, argument parsing only: each has `register(subparsers)`, which adds its
sub-command(s) and sets `func` to the product or development code that runs them. A bad value
is a usage error (exit 2, argparse), before anything runs (kanon_tools.cli.types).
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

# kanon_tools.cli.<name> for each; `python -m kanon_tools --help` lists them in this order
COMMAND_MODULES = ("generate", "demo", "audit", "bench", "bench_records", "bench_table", "bench_file", "bench_spark",
                   "spark_cluster", "receipt", "report", "attack", "ptable", "records")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kanon_tools",
                                     description="`python -m kanon_tools <command>`: one CLI, one sub-command per "
                                                 "module of kanon_tools.cli.")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"kanon_tools.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # a command with verbs of its own (records) runs them through its dispatcher (its exit codes)
    run = getattr(args, "command_func", None) or args.func
    return int(run(args) or 0)
