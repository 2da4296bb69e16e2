"""`python -m kanon_tools report`: a static HTML page of the audit trail for reviewers (kanon_tools.report)."""

from __future__ import annotations

import argparse
import datetime
from typing import Any

from kanon_tools import report
from kanon_tools.cli.audit import add_dbt_options
from kanon_tools.cli.receipt import name


def date(text: str) -> str:
    try:
        return datetime.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a date, YYYY-MM-DD, got {text!r}") from None


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        report.COMMAND, help="one self-contained HTML page of the releases in a period, for reviewers",
        description="One static HTML file (no server, no network: styles and plots inline) of every release in "
                    "the period, read from the audit trail through `dbt run-operation kanon.cli_report`: the "
                    "overview, then per release kind its decisions, lattice node or grid. Names and counts only; "
                    "never a hidden count.")
    parser.add_argument("--report", action="append", dest="reports", metavar="MODEL",
                        type=name("a released model's name or unique id"),
                        help="only this report (repeat for several; default every report on the trail)")
    parser.add_argument("--since", type=date, metavar="DATE",
                        help="only releases from this date on, YYYY-MM-DD (default all)")
    parser.add_argument("--attack", action="append", dest="attacks", metavar="FILE", default=[],
                        help="a verdict written by `attack --verdict FILE`: shown with the tables it audited "
                             "(repeat for several; without one a table's LP audit says 'not recorded')")
    parser.add_argument("-o", "--out", required=True, metavar="FILE", help="the HTML file to write")
    add_dbt_options(parser)
    parser.set_defaults(func=report.run_report)
