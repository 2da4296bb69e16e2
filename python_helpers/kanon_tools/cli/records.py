"""`python -m kanon_tools records <verb>` and the `kanon-records` script: the file-in, file-out
record release (kanon_tools.records.commands runs the verbs; kanon_tools.records.example writes
the example)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from kanon_tools.records import commands, example, report


def _common(parser: argparse.ArgumentParser, *, packs: bool) -> None:
    parser.add_argument("file", help="the input file: CSV, JSON or XML (UTF-8)")
    parser.add_argument("--in-format", choices=("csv", "json", "xml"),
                        help="the input's format (default: its extension)")
    parser.add_argument("--lang", choices=report.LANGUAGES, default="en", help="en (default) or ja")
    parser.add_argument("--work-dir", help="keep the working folder (dbt project, DuckDB file) here, for debugging")
    if packs:
        parser.add_argument("--hint-pack", action="append", default=[], metavar="FILE",
                            help="add a hint pack (after the built-in one, in the order given)")
        parser.add_argument("--no-builtin-hints", action="store_true", help="leave out the built-in Japanese hint pack")


def add_parsers(subparsers: Any) -> None:
    inspect = subparsers.add_parser("inspect", help="propose a role per column, with the evidence, as a JSON config")
    _common(inspect, packs=True)
    inspect.add_argument("--config-out", required=True, help="where to write the proposed configuration")
    inspect.set_defaults(func=commands.run_inspect)
    plan = subparsers.add_parser("plan", help="lattice, budget, risk, warnings, leaks and proxies; writes nothing")
    _common(plan, packs=True)
    plan.add_argument("-c", "--config", required=True, help="the configuration (JSON)")
    plan.add_argument("--format", choices=("text", "json"), default="text")
    plan.set_defaults(func=commands.run_plan)
    run = subparsers.add_parser("run", help="release: generalize, suppress, recount, write the file and the receipt")
    _common(run, packs=True)
    run.add_argument("-c", "--config", required=True, help="the configuration (JSON)")
    run.add_argument("-o", "--output", help="the released file (its extension or --out-format gives the format)")
    run.add_argument("--out-format", choices=("csv", "json", "xml"))
    run.add_argument("--report-json", help="write the receipt as JSON here")
    run.add_argument("--report-text", help="write the receipt as text here (it is also printed)")
    run.add_argument("--key", help="the pseudonym key file (keygen), for identifiers with pseudonym: true")
    run.add_argument("--dry-run", action="store_true", help="release into the working folder only: write no file")
    run.add_argument("--refuse-on-findings", action="store_true",
                     help="refuse (exit 3, nothing written) when a leak or a proxy plan would report is in what "
                          "the file would publish (by default they are warnings)")
    run.set_defaults(func=commands.run_release)
    keygen = subparsers.add_parser("keygen", help="write a random pseudonym key (mode 600)")
    keygen.add_argument("-o", "--output", required=True, help="the key file to create")
    keygen.add_argument("--force", action="store_true", help="replace an existing key file")
    keygen.set_defaults(func=commands.run_keygen)
    example_parser = subparsers.add_parser("example", help="write the 600-person Japanese example (synthetic)")
    example_parser.add_argument("-o", "--output", required=True)
    example_parser.set_defaults(func=example.run_example)


def build_parser(prog: str = "kanon-records") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=commands.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_parsers(parser.add_subparsers(dest="verb", required=True))
    return parser


def dispatch(args: argparse.Namespace) -> int:
    try:
        return int(args.func(args))
    except commands.Stop as stop:
        print(f"kanon records: {stop}", file=sys.stderr)
        return stop.code


def register(subparsers: Any) -> None:
    """`python -m kanon_tools records <verb>`."""
    parser = subparsers.add_parser("records", help="a file of people in, a k-anonymous file out (inspect, plan, run)",
                                   description=commands.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_parsers(parser.add_subparsers(dest="verb", required=True))
    parser.set_defaults(command_func=dispatch)


def main(argv: Sequence[str] | None = None) -> int:
    return dispatch(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
