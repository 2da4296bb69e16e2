"""`python -m kanon_tools <command>`: one CLI, one sub-command per helper module."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module exposes `register(subparsers)`, which adds its sub-command(s) and sets `func`.
COMMAND_MODULES = ["generate", "demo", "audit", "bench", "bench_records", "bench_table", "bench_file", "bench_spark",
                   "receipt", "attack_report", "records.cli"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kanon_tools", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"kanon_tools.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # a command with verbs of its own (records) runs them through its dispatcher (its exit codes)
    run = getattr(args, "command_func", None) or args.func
    return int(run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
