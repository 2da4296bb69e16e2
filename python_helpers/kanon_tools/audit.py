"""Audits of what was published, and of the audit trail itself.

    python -m kanon_tools audit --report circulation_by_branch_age_title --min-cell 5
        scans the published mart for rows below the threshold; exit 1 if any (counts only,
        never the offending rows' labels).
    python -m kanon_tools audit-log [--last 10] [--jump 0.05] [--fail-on-jump]
        the last releases of every report, and warnings where the suppression rate jumped,
        saying whether the release policy had changed.

Both only read: they open the warehouse read-only (a DuckDB file that is not there is refused,
never created). Bad arguments exit 2 (argparse); a missing database, schema, table, column or
audit trail exits 1 with one line, `kanon audit: ...` or `kanon audit-log: ...`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from kanon_tools.cli_types import min_cell, positive_count, share
from kanon_tools.warehouse import (
    TARGETS,
    Target,
    WarehouseError,
    connect,
    database_errors,
    fetch,
    quote_ident,
    target,
)

AUDIT_SCHEMA = "kanon_audit"


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _one_line(exc: BaseException) -> str:
    """The first line of a driver's error message (DuckDB and Postgres add a LINE/caret excerpt)."""
    lines = str(exc).strip().splitlines()
    return lines[0].strip() if lines else type(exc).__name__


@contextmanager
def _reading(kind: str, command: str) -> Iterator[Any]:
    """A read-only connection; any failure to open or read it ends the command in one line."""
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


def _like_escape(text: str) -> str:
    """`text` as a LIKE pattern matching only itself, with backslash as the escape character."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _audit_relation(tgt: Target, name: str, audit_schema: str | None) -> str:
    if audit_schema:
        return f"{quote_ident(audit_schema)}.{quote_ident(name)}"
    return tgt.relation(name, AUDIT_SCHEMA)


def find_mart(conn: Any, tgt: Target, report: str, schema: str | None) -> str:
    """The published relation of a report: in `schema`, or the one table of that name under the target's schemas."""
    if schema:
        return f"{quote_ident(schema)}.{quote_ident(report)}"
    # The target schema itself or dbt's <target schema>_<custom schema>, matched literally: `_`, `%`
    # and `\` in the name are escaped, so kt_a matches neither ktxa_... nor kt_a2_...
    custom = _like_escape(tgt.schema + "_") + "%"
    _, rows = fetch(
        conn,
        "select table_schema from information_schema.tables "
        f"where table_name = {_sql_literal(report)} "
        f"and (table_schema = {_sql_literal(tgt.schema)} or table_schema like {_sql_literal(custom)} escape '\\') "
        f"and table_schema <> {_sql_literal(tgt.schema + '_' + AUDIT_SCHEMA)}",
    )
    if len(rows) != 1:
        found = ", ".join(sorted(str(r[0]) for r in rows)) or "none"
        raise SystemExit(f"kanon audit: expected one published table named {report!r}, found in schemas: {found}; "
                         "name it with --schema")
    return f"{quote_ident(str(rows[0][0]))}.{quote_ident(report)}"


def latest_count_column(conn: Any, releases: str, report: str) -> str | None:
    """The count column the last successful release of the report was checked on."""
    try:
        _, rows = fetch(
            conn,
            f"select count_column from {releases} where report = {_sql_literal(report)} "
            "and status = 'RELEASED' order by released_at desc limit 1",
        )
    except Exception:  # no audit trail reachable: the caller falls back to --count-column
        # Postgres connections here are autocommit, DuckDB has no open transaction after a
        # failed statement (its rollback() would raise): nothing to roll back either way.
        return None
    return str(rows[0][0]) if rows and rows[0][0] else None


def mart_columns(conn: Any, kind: str, mart: str) -> list[str]:
    """The published table's column names; a table that cannot be read ends the audit in one line."""
    try:
        columns, _ = fetch(conn, f"select * from {mart} where 1 = 0")
    except database_errors(kind) as exc:
        raise SystemExit(f"kanon audit: cannot read {mart}: {_one_line(exc)}") from None
    return columns


def run_audit(args: argparse.Namespace) -> int:
    tgt = target(args.target)
    with _reading(args.target, "audit") as conn:
        mart = find_mart(conn, tgt, args.report, args.schema)
        columns = mart_columns(conn, args.target, mart)
        releases = _audit_relation(tgt, "kanon_audit_releases", args.audit_schema)
        column = args.count_column or latest_count_column(conn, releases, args.report) or "people"
        # DuckDB resolves quoted names case-insensitively, Postgres exactly
        known = columns if args.target == "postgres" else [c.lower() for c in columns]
        if (column if args.target == "postgres" else column.lower()) not in known:
            raise SystemExit(f"kanon audit: {mart} has no column {column!r} (its columns: {', '.join(columns)}); "
                             "name the people-count column with --count-column")
        _, rows = fetch(
            conn,
            f"select count(*), sum(case when {quote_ident(column)} is null or {quote_ident(column)} < {args.min_cell} "
            f"then 1 else 0 end), min({quote_ident(column)}) from {mart}",
        )
    total, below, smallest = rows[0]
    below = int(below or 0)
    print(f"{mart}: {total} rows, smallest {column} = {smallest}, {below} row(s) below {args.min_cell} or NULL")
    if below:
        print(f"FAIL: {args.report} publishes {below} cell(s) describing fewer than {args.min_cell} people",
              file=sys.stderr)
        return 1
    print(f"OK: every published row of {args.report} describes at least {args.min_cell} people")
    return 0


@dataclass(frozen=True)
class Release:
    report: str
    released_at: Any
    status: str
    fingerprint: str
    k: int
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
            f"after a policy change ({before.fingerprint[:8]} -> {rel.fingerprint[:8]})"
            if rel.fingerprint != before.fingerprint
            else "with the same policy: the data changed"
        )
        warnings.append(
            f"WARNING {rel.report}: suppression rate {before.rate:.1%} -> {rel.rate:.1%} at {rel.released_at} {cause}"
        )
    return warnings


def run_audit_log(args: argparse.Namespace) -> int:
    tgt = target(args.target)
    with _reading(args.target, "audit-log") as conn:
        releases = _audit_relation(tgt, "kanon_audit_releases", args.audit_schema)
        try:
            _, rows = fetch(
                conn,
                "select report, released_at, status, policy_fingerprint, k, cells_in, cells_suppressed, "
                f"suppression_rate, reason from {releases} order by released_at, report",
            )
        except database_errors(args.target) as exc:
            raise SystemExit(f"kanon audit-log: cannot read the audit trail {releases} (nothing released yet, "
                             f"or name its schema with --audit-schema): {_one_line(exc)}") from None
    history = [
        Release(
            str(r[0]), r[1], str(r[2]), str(r[3]), int(r[4]),
            None if r[5] is None else int(r[5]),
            None if r[6] is None else int(r[6]),
            None if r[7] is None else float(Decimal(str(r[7]))),
            None if r[8] is None else str(r[8]),
        )
        for r in rows
    ]
    print(f"{'report':<40} {'released_at':<20} {'status':<9} {'k':>3} {'cells':>7} {'suppr.':>7} {'rate':>7}  policy")
    for rel in history[-args.last:]:
        rate = "" if rel.rate is None else f"{rel.rate:.1%}"
        cells = "" if rel.cells_in is None else str(rel.cells_in)
        suppressed = "" if rel.cells_suppressed is None else str(rel.cells_suppressed)
        line = (f"{rel.report:<40} {str(rel.released_at)[:19]:<20} {rel.status:<9} {rel.k:>3} {cells:>7} "
                f"{suppressed:>7} {rate:>7}  {rel.fingerprint[:8]}")
        print(line + (f"  ({rel.reason})" if rel.reason else ""))
    warnings = jumps(history, args.jump)
    for warning in warnings:
        print(warning)
    return 1 if warnings and args.fail_on_jump else 0


def register(subparsers: Any) -> None:
    audit = subparsers.add_parser("audit", help="scan a published mart for cells below a threshold")
    audit.add_argument("--report", required=True, help="the mart's name, e.g. circulation_by_branch_age_title")
    audit.add_argument("--min-cell", type=min_cell, required=True,
                       help="smallest number of people a row may show: a whole number >= 2, like k")
    audit.add_argument("--count-column", help="default: the one its last release was checked on, else 'people'")
    audit.add_argument("--schema", help="the mart's schema (default: found under the target schema)")
    audit.add_argument("--audit-schema", help=f"default: <target schema>_{AUDIT_SCHEMA}")
    audit.add_argument("--target", choices=TARGETS, default="duckdb")
    audit.set_defaults(func=run_audit)

    log = subparsers.add_parser("audit-log", help="summarize the audit trail; warn on suppression-rate jumps")
    log.add_argument("--last", type=positive_count, default=10, help="how many releases to list (at least 1)")
    log.add_argument("--jump", type=share, default=0.05,
                     help="warn when the rate moves by more than this share (0.05 = 5 points)")
    log.add_argument("--fail-on-jump", action="store_true", help="exit 1 when there is a warning")
    log.add_argument("--audit-schema", help=f"default: <target schema>_{AUDIT_SCHEMA}")
    log.add_argument("--target", choices=TARGETS, default="duckdb")
    log.set_defaults(func=run_audit_log)
