"""`python -m kanon_tools audit` and `audit-log` (kanon_tools.audit), and the dbt options every
command that reads a dbt project takes (audit, audit-log, receipt, attack)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from kanon_tools.audit import run_audit, run_audit_log
from kanon_tools.cli.types import min_cell, positive_count, share


def add_dbt_options(parser: argparse.ArgumentParser) -> None:
    """--project-dir, --profiles-dir and --target, as kanon_tools.audit.cli_runner reads them."""
    parser.add_argument("--project-dir", default=os.curdir,
                        help="the dbt project that has kanon installed (default: the current directory)")
    parser.add_argument("--profiles-dir", default=None,
                        help="where profiles.yml is (default: DBT_PROFILES_DIR, else the project directory "
                             "when it holds one, else ~/.dbt)")
    parser.add_argument("--target", default=None, help="the dbt target to read (default: the profile's own)")


def register(subparsers: Any) -> None:
    graph = "(its relation comes from the dbt project's graph: no --schema needed)"
    audit = subparsers.add_parser("audit", help="scan a published mart for cells below a threshold",
                                  description=f"Scan a released model's published relation {graph}, "
                                              "through `dbt run-operation kanon.cli_scan_release`.")
    audit.add_argument("--report", required=True,
                       help="the released model's name, e.g. circulation_by_branch_age_title")
    audit.add_argument("--min-cell", type=min_cell, required=True,
                       help="smallest number of people a row may show: a whole number >= 2, like k")
    audit.add_argument("--count-column", help="default: the one its last release was checked on, else 'people'")
    add_dbt_options(audit)
    audit.set_defaults(func=run_audit)

    log = subparsers.add_parser("audit-log", help="summarize the audit trail; warn on suppression-rate jumps",
                                description="Summarize the audit trail (kanon_audit_releases, found from the dbt "
                                            "project's graph: no --audit-schema needed), through `dbt run-operation "
                                            "kanon.cli_audit_log`.")
    log.add_argument("--last", type=positive_count, default=10, help="how many releases to list (at least 1)")
    log.add_argument("--jump", type=share, default=0.05,
                     help="warn when the rate moves by more than this share (0.05 = 5 points)")
    log.add_argument("--fail-on-jump", action="store_true", help="exit 1 when there is a warning")
    add_dbt_options(log)
    log.set_defaults(func=run_audit_log)
