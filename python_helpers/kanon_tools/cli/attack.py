"""`python -m kanon_tools attack`: the attacker's audit of published tables with totals
(kanon_tools.attack_report, by kanon_tools.attack's linear programs)."""

from __future__ import annotations

from typing import Any

from kanon_tools import attack_report
from kanon_tools.cli.audit import add_dbt_options
from kanon_tools.cli.types import finite_number

protection = finite_number(0.0, None, "a width of at least 0 (in people)")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        attack_report.COMMAND,
        help="audit a published table with totals as an attacker would (LP): exit 1 on a disclosure",
        description="Read a table released by kanon.release_table (through `dbt run-operation "
                    "kanon.cli_table_cells`) and find, by linear programming, every hidden cell's feasible "
                    "interval from what is published; given several, what they publish together (cells "
                    "that count the same people are one number). Prints counts and labels only.")
    parser.add_argument("--report", required=True, action="append",
                        help="the released model's name, e.g. table_worked; repeat it to audit tables released from "
                             "the same events together (their shared margins are one number)")
    parser.add_argument("--protection", type=protection, default=0.0,
                        help="also fail when a hidden cell's interval is narrower than this (in people; default 0, "
                             "or the release's own protection when it promised a wider one)")
    parser.add_argument("--verdict", metavar="FILE",
                        help="also write the verdict to FILE as JSON (the reports, when, how many hidden cells could "
                             "be worked out: counts only), for `report --attack FILE`")
    add_dbt_options(parser)
    parser.set_defaults(func=attack_report.run_attack)
