"""`python -m kanon_tools receipt`: the receipt of one release (kanon_tools.receipt)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from kanon_tools import receipt
from kanon_tools.cli.audit import add_dbt_options


def name(what: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"must be {what}, got {text!r}")
        return text.strip()

    return parse


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        receipt.COMMAND, help="the receipt of a release: what was done, its guarantee and its cost",
        description="The receipt of one release of a report, from the audit trail (found from the dbt project's "
                    "graph), through `dbt run-operation kanon.cli_release_receipt`. Names and counts only.")
    parser.add_argument("--report", required=True, type=name("a released model's name or unique id"),
                        help="the released model's name (or unique id), e.g. people_extract")
    parser.add_argument("--invocation", type=name("a dbt invocation id"),
                        help="the dbt invocation id of the release (default: the report's latest release; "
                             "audit-log lists them)")
    parser.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    parser.add_argument("--out", default=None, help="write the receipt to this file instead of printing it")
    add_dbt_options(parser)
    parser.set_defaults(func=receipt.run_receipt)
