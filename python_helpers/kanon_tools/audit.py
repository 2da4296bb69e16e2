"""Audits of what was published, and of the audit trail itself, read through dbt.

    python -m kanon_tools audit --report circulation_by_branch_age_title --min-cell 5
        scans the model's published relation for rows below the threshold; exit 1 if any
        (counts only, never the offending rows' labels).
    python -m kanon_tools audit-log [--last 10] [--jump 0.05] [--fail-on-jump]
        the last releases of every report, and warnings where the suppression rate jumped,
        saying whether the release policy had changed.

Both run kanon's macros (kanon.cli_scan_release, kanon.cli_audit_log; macros/cli/) with `dbt
run-operation` in a dbt project that has kanon (--project-dir, default the current directory;
--profiles-dir, default DBT_PROFILES_DIR, else the project directory when it holds profiles.yml,
else ~/.dbt; --target passed to dbt). Where the report and the audit trail live comes from that
project's graph, so there is no --schema or --audit-schema any more: the project's own schema
configs (and its kanon_audit_schema var) answer them. dbt's artifacts and log go to a temporary
directory, not the project's target/.

Both only read: a DuckDB file that is not there is refused before dbt runs (a dbt connection would
create it); on Postgres the macros make their session read-only; on DuckDB they only select.
Bad arguments exit 2 (argparse); a missing project, database, model, relation, column or audit
trail exits 1 with one line, `kanon audit: ...` or `kanon audit-log: ...`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from kanon_tools.dbt_runner import DbtError, DbtRunner, cache_dir
from kanon_tools.warehouse import (
    WarehouseError,
    connect,
    database_errors,
    profile_target,
    profiles_dir_for,
)


def _one_line(exc: BaseException) -> str:
    """The first line of a driver's error message (DuckDB and Postgres add a LINE/caret excerpt)."""
    lines = str(exc).strip().splitlines()
    return lines[0].strip() if lines else type(exc).__name__


@contextmanager
def read_only_connection(kind: str, command: str) -> Iterator[Any]:
    """A read-only driver connection; any failure to open or read it ends the command in one line.
    (The demo's; audit and audit-log read through dbt, see cli_operation.)"""
    prefix = f"kanon {command}"
    errors = database_errors(kind)
    try:
        conn = connect(kind, read_only=True)
    except WarehouseError as exc:
        raise SystemExit(f"{prefix}: {exc}") from None
    except errors as exc:
        raise SystemExit(f"{prefix}: cannot connect to {kind}: {_one_line(exc)}") from None
    try:
        yield conn
    except errors as exc:
        raise SystemExit(f"{prefix}: {_one_line(exc)}") from None
    finally:
        conn.close()


@contextmanager
def cli_runner(args: argparse.Namespace, command: str) -> Iterator[DbtRunner]:
    """A DbtRunner for a read-only CLI command in the project of --project-dir / --profiles-dir /
    --target (kanon_tools.cli.audit.add_dbt_options), with dbt's artifacts in a temporary directory. Refuses, in one
    line, a directory that is no dbt project, an unreadable profile, and a DuckDB file that is not
    there (checked before dbt runs: a dbt connection would create it)."""
    prefix = f"kanon {command}"
    project_dir = Path(args.project_dir).resolve()
    if not (project_dir / "dbt_project.yml").is_file():
        raise SystemExit(f"{prefix}: no dbt project at {project_dir} (no dbt_project.yml); "
                         "run it from the project or give --project-dir")
    profiles_dir = Path(args.profiles_dir).resolve() if args.profiles_dir else profiles_dir_for(project_dir)
    cwd = Path.cwd()  # dbt runs here, as when typed here: relative paths in profiles.yml mean the same
    try:
        missing = profile_target(project_dir, profiles_dir, args.target).missing_duckdb_file(cwd)
    except WarehouseError as exc:
        raise SystemExit(f"{prefix}: {exc}") from None
    if missing is not None:
        raise SystemExit(f"{prefix}: no DuckDB database at {missing} (the profile's path; KANON_DUCKDB_PATH in "
                         "kanon's profiles.yml): build the project first, or point the profile at its file")
    with tempfile.TemporaryDirectory(prefix="kanon-cli-") as scratch:
        yield DbtRunner(project_dir, profiles_dir=profiles_dir, target=args.target, cwd=cwd,
                        target_path=Path(scratch) / "target", log_path=Path(scratch) / "logs",
                        parse_cache=cache_dir() / "parses")


def cli_operation(args: argparse.Namespace, command: str, macro: str, macro_args: Mapping[str, Any]) -> Any:
    """Run a kanon cli_ macro in the project; any failure ends the command in one line."""
    with cli_runner(args, command) as runner:
        try:
            return runner.run_operation(macro, macro_args)
        except DbtError as exc:
            raise SystemExit(f"kanon {command}: {exc.message}") from None


def run_audit(args: argparse.Namespace) -> int:
    macro_args: dict[str, Any] = {"report": args.report, "min_cell": args.min_cell}
    if args.count_column:
        macro_args["count_column"] = args.count_column
    scan = cli_operation(args, "audit", "kanon.cli_scan_release", macro_args)
    relation, column, total = scan["relation"], scan["count_column"], scan["rows"]
    below, smallest = int(scan["below"]), scan["smallest"]
    print(f"{relation}: {total} rows, smallest {column} = {smallest}, {below} row(s) below {args.min_cell} or NULL, "
          "NaN or infinite")
    if below:
        print(f"FAIL: {args.report} publishes {below} cell(s) describing fewer than {args.min_cell} people",
              file=sys.stderr)
        return 1
    print(f"OK: every published row of {args.report} describes at least {args.min_cell} people")
    return 0


@dataclass(frozen=True)
class Release:
    """A row of the trail as audit-log shows it. Any field but the report may be missing: a
    release refused at compile time has no k, policy or counts (kanon's on-run-end hook writes
    it), and the trail's DDL allows NULL in every column."""

    report: str
    released_at: Any
    status: str | None
    fingerprint: str | None
    k: int | None
    cells_in: int | None
    cells_suppressed: int | None
    rate: float | None
    reason: str | None


def jumps(releases: list[Release], threshold: float) -> list[str]:
    """Warnings for consecutive releases of a report whose suppression rate moved by more than threshold."""
    warnings: list[str] = []
    previous: dict[str, Release] = {}
    for rel in sorted(releases, key=lambda r: (r.report, str(r.released_at))):
        if rel.status != "RELEASED" or rel.rate is None:
            continue
        before = previous.get(rel.report)
        previous[rel.report] = rel
        if before is None or before.rate is None or abs(rel.rate - before.rate) <= threshold:
            continue
        cause = (
            f"after a policy change ({_dash(before.fingerprint)[:8]} -> {_dash(rel.fingerprint)[:8]})"
            if rel.fingerprint != before.fingerprint
            else "with the same policy: the data changed"
        )
        warnings.append(
            f"WARNING {rel.report}: suppression rate {before.rate:.1%} -> {rel.rate:.1%} at {rel.released_at} {cause}"
        )
    return warnings


def _dash(value: object) -> str:
    """A value as audit-log prints it: '-' where the trail holds NULL."""
    return "-" if value is None else str(value)


def _release(row: Mapping[str, Any]) -> Release:
    def count(name: str) -> int | None:
        return None if row[name] is None else int(row[name])

    def text(name: str) -> str | None:
        return None if row[name] is None else str(row[name])

    return Release(
        _dash(row["report"]), row["released_at"], text("status"), text("policy_fingerprint"), count("k"),
        count("cells_in"), count("cells_suppressed"),
        None if row["suppression_rate"] is None else float(Decimal(str(row["suppression_rate"]))),
        text("reason"),
    )


def run_audit_log(args: argparse.Namespace) -> int:
    # The whole history, not --last: a jump is judged against the release before it, however old.
    log = cli_operation(args, "audit-log", "kanon.cli_audit_log", {})
    history = [_release(row) for row in log["releases"]]
    print(f"{'report':<40} {'released_at':<20} {'status':<9} {'k':>3} {'cells':>7} {'suppr.':>7} {'rate':>7}  policy")
    for rel in history[-args.last:]:
        rate = "" if rel.rate is None else f"{rel.rate:.1%}"
        cells = "" if rel.cells_in is None else str(rel.cells_in)
        suppressed = "" if rel.cells_suppressed is None else str(rel.cells_suppressed)
        line = (f"{rel.report:<40} {_dash(rel.released_at)[:19]:<20} {_dash(rel.status):<9} {_dash(rel.k):>3} "
                f"{cells:>7} {suppressed:>7} {rate:>7}  {_dash(rel.fingerprint)[:8]}")
        print(line + (f"  ({rel.reason})" if rel.reason else ""))
    warnings = jumps(history, args.jump)
    for warning in warnings:
        print(warning)
    return 1 if warnings and args.fail_on_jump else 0
