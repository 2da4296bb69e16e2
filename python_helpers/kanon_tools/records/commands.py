"""`python -m kanon_tools records` (also `kanon-records`): a file of people in, a k-anonymous,
l-diverse file out, with no warehouse and no dbt knowledge. The guide, with the configuration
file and the hint packs: docs/reference/records-from-a-file.md in kanon's repository.

    kanon-records inspect people.csv --config-out config.json     # propose a role per column
    kanon-records plan people.csv -c config.json                  # what a release would face
    kanon-records run people.csv -c config.json -o safe.csv --report-json receipt.json [--lang ja]
    kanon-records keygen -o key.txt                               # a pseudonym key (mode 600)

The release is kanon's own (`kanon.release_records` under the `k_anonymous` gate) on an embedded
DuckDB, through dbt, in a working folder made for the command; kanon-records reads and writes
the files, applies the hint packs and prints what happened. Nothing it prints or writes besides
the released file holds a value of the input: names, counts and shares only.

Exit codes: 0 done; 1 a file could not be read or written (or is not the format it claims, or
holds no record: an empty file, a header without rows, `[]`, XML without a record); 2 the
arguments (a format that cannot be told), the configuration, a hint pack, the key or the data's
types do not fit (nothing ran: every check the configuration allows comes before dbt starts);
3 the release was refused (the target cannot be reached within the budget, or
`--refuse-on-findings` and a leak or proxy in what would be published): nothing written, the
receipt says why. Leaks and proxies are warnings otherwise: `run` repeats plan's on stderr and in
the receipt, and they never change the exit code.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import math
import os
import secrets
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, key_status
from kanon_tools.receipt import parse_plan, records_receipt
from kanon_tools.records import hints, proxies, report
from kanon_tools.records.config import Config, ConfigError, Rows, check_header, hierarchy_problem, read_config
from kanon_tools.records.engine import EngineError, Workspace, hierarchies
from kanon_tools.records.files import FileFormatError, Table, format_of, parse_table, render_table, write_file
from kanon_tools.records.loading import LoadError

OK, IO_ERROR, CONFIG_ERROR, REFUSED = 0, 1, 2, 3
CONFIG_VERSION = 1


class Stop(Exception):
    """Ends the command with an exit code and a one-line message on stderr."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- reading the inputs ------------------------------------------------------------------------

def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_input(path: Path, fmt: str | None) -> tuple[Table, str, bytes]:
    try:
        chosen = format_of(path, fmt)
    except FileFormatError as error:  # a usage error, like an unknown output format
        raise Stop(CONFIG_ERROR, str(error)) from None
    try:
        data = path.read_bytes()
        table = parse_table(data, chosen, name=path.name)
    except OSError as error:
        raise Stop(IO_ERROR, f"cannot read {path}: {error.strerror or error}") from None
    except FileFormatError as error:
        raise Stop(IO_ERROR, str(error)) from None
    if not table.rows:  # a CSV header alone: refused as an empty file is (exit 1), before any work
        raise Stop(IO_ERROR, f"{path.name}: no records (a header and no rows): nothing to inspect, plan or release")
    return table, chosen, data


def _read_config(path: Path, table: Table) -> tuple[Config, bytes]:
    try:
        data = path.read_bytes()
        return read_config(path, table.columns), data
    except OSError as error:
        raise Stop(IO_ERROR, f"cannot read {path}: {error.strerror or error}") from None
    except ConfigError as error:
        raise Stop(CONFIG_ERROR, str(error)) from None


def _check_coverage(table: Table, config: Config) -> dict[int, Rows]:
    """A prefix generalizer has values to build its hierarchy from, and every value of a column
    with a hierarchy is one of its leaves. kanon would label a missing
    value with the root at every level (and say so in a warning); a file release refuses instead,
    since the user can fix the hierarchy or the file and rerun. Counted, never shown. Returns the
    hierarchies (engine.hierarchies), built once for the check and the load."""
    built = hierarchies(table, config)
    for index, column in enumerate(config.columns):
        if column.prefix is not None:
            rows = built[index]
            if not rows:
                raise Stop(CONFIG_ERROR, f"column {column.name!r}: every value is empty, so there is nothing to build "
                                         "its prefix hierarchy from: drop the column or give it no generalizer")
            if hierarchy_problem(rows):  # a value with too few digits: its label repeats at two levels
                short = sum(1 for row in rows if len(set(row[1:])) < len(row) - 1)
                raise Stop(CONFIG_ERROR, f"column {column.name!r}: {short} distinct value(s) have too few digits for "
                                         f"its prefix lengths {list(column.prefix)}, so a prefix label would stand for "
                                         "different values at two levels: correct them, or give shorter lengths")
        if column.hierarchy is None:
            continue
        leaves = {row[0] for row in column.hierarchy}
        values = [v for v in _column_values(table, column.name) if v is not None]
        missing = [v for v in values if v not in leaves]
        if missing:
            raise Stop(CONFIG_ERROR, f"column {column.name!r}: {len(missing)} of {len(values)} value(s) "
                                     f"({len(set(missing))} distinct) are not leaves of its hierarchy")
    return built


def _packs(args: argparse.Namespace) -> tuple[hints.Pack, ...]:
    try:
        return hints.select_packs(not args.no_builtin_hints, [Path(p) for p in args.hint_pack])
    except OSError as error:
        raise Stop(IO_ERROR, f"cannot read a hint pack: {error.strerror or error}") from None
    except hints.HintPackError as error:
        raise Stop(CONFIG_ERROR, str(error)) from None


def _workspace(args: argparse.Namespace, key_hex: str | None = None) -> tuple[Workspace, Any]:
    """The working folder: --work-dir (kept) or a temporary one (removed when the command ends).
    An installation without kanon's dbt package ends the command in one line (exit 1)."""
    holder = None if args.work_dir else tempfile.TemporaryDirectory(prefix="kanon-records-")
    folder = Path(args.work_dir) if holder is None else Path(holder.name)
    try:
        return Workspace.create(folder, key_hex=key_hex), holder
    except EngineError as error:
        if holder is not None:
            holder.cleanup()
        raise Stop(IO_ERROR, str(error)) from None


def _load(ws: Workspace, table: Table, config: Config | None,
          built: dict[int, Rows] | None = None) -> None:
    try:
        ws.load(table, config, built)
    except LoadError as error:
        raise Stop(CONFIG_ERROR, str(error)) from None


def _engine(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except EngineError as error:
        raise Stop(CONFIG_ERROR, f"kanon refused the configuration: {error}") from None


def _write(path: Path, data: bytes) -> None:
    try:
        write_file(path, data)
    except OSError as error:
        raise Stop(IO_ERROR, f"cannot write {path}: {error.strerror or error}") from None


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _column_values(table: Table, name: str) -> list[str | None]:
    position = table.columns.index(name)
    return [row[position] for row in table.rows]


# --- inspect -------------------------------------------------------------------------------------

def proposal(table: Table, stats: dict[str, Any], packs: Sequence[hints.Pack]) -> dict[str, Any]:
    """The configuration inspect proposes: per column the first hint pack suggestion's role and
    generalizer, else kanon's suggestion, never `keep` (it would publish the column unprotected:
    the user decides that), with the evidence."""
    by_name = {c["name"]: c for c in stats.get("columns", [])}
    hierarchies = {name: rows for pack in packs for name, rows in pack.hierarchies.items()}
    columns: dict[str, Any] = {}
    for name in table.columns:
        values = _column_values(table, name)
        found = hints.suggest_column(name, values, packs)
        measured = by_name.get(name, {})
        spec: dict[str, Any] = {}
        if found:
            first = found[0]
            spec["role"] = first.role
            spec.update(_generalizer(first.generalizer, hierarchies))
        else:
            spec["role"] = "drop" if measured.get("role") == "keep" else measured.get("role", "drop")
        observations = hints.observe_column(name, values, packs, None, [s.role for s in found])
        spec["evidence"] = {
            "non_null": measured.get("non_null"), "distinct": measured.get("distinct"),
            "uniqueness": measured.get("uniqueness"), "null_share": measured.get("null_share"),
            "kanon_suggests": {"role": measured.get("role"), "reason": measured.get("reason")},
            "hints": [{"rule": s.rule_id, "role": s.role, "name_matched": s.evidence.name_matched,
                       "shape_share": s.evidence.shape_share, "values_share": s.evidence.values_share,
                       "range_share": s.evidence.range_share, "why": s.why.get("en")} for s in found],
            "observations": [{"rule": o.rule_id, "check": o.check, "count": o.count, "of": o.of} for o in observations],
        }
        if not found and measured.get("role") == "keep":
            spec["note"] = ("kanon would keep it; proposed drop: 'keep' publishes it unprotected, "
                            "set it only if harmless")
        columns[name] = spec
    return {"version": CONFIG_VERSION, "k": 5, "l": None, "diversity": "distinct", "max_suppression": 0.05,
            "suppression_unit": "records", "privacy_unit": None, "loss": "non_uniform_entropy",
            "missing_value_policy": "star", "shuffle_seed": "kanon", "columns": columns}


def _generalizer(suggested: dict[str, Any] | None, hierarchies: dict[str, Any]) -> dict[str, Any]:
    """A hint's generalizer as configuration keys (a pack's hierarchy copied inline)."""
    if not suggested:
        return {}
    kind = suggested["type"]
    if kind == "prefix":
        return {"prefix": list(suggested["lengths"])}
    if kind == "bins":
        return {"type": "integer", "bins": [list(e) for e in suggested["edges"]]}
    if kind == "date":
        return {"type": "date", "date": list(suggested["levels"])}
    return {"hierarchy": {"rows": [list(r) for r in hierarchies[suggested["hierarchy"]]]}}


def run_inspect(args: argparse.Namespace) -> int:
    table, _, _ = _read_input(Path(args.file), args.in_format)
    try:
        check_header(table.columns)
    except ConfigError as error:
        raise Stop(CONFIG_ERROR, f"{Path(args.file).name}: {error}") from None
    packs = _packs(args)
    ws, holder = _workspace(args)
    try:
        _load(ws, table, None)
        stats = _engine(ws.inspect)
    finally:
        if holder is not None:
            holder.cleanup()
    proposed = proposal(table, stats, packs)
    _write(Path(args.config_out), _json_bytes(proposed))
    ja = args.lang == "ja"
    print(f"{args.file}: {len(table.rows)} " + ("件、" if ja else "rows, ") + f"{len(table.columns)} "
          + ("列" if ja else "columns"))
    for name, spec in proposed["columns"].items():
        rule = spec["evidence"]["hints"][0]["rule"] if spec["evidence"]["hints"] else "kanon"
        generalizer = next((k for k in ("prefix", "hierarchy", "bins", "date") if k in spec), "")
        role = report.ROLE_NAMES[args.lang][spec["role"]]
        print(f"  {name}: {role}" + (f" ({generalizer})" if generalizer else "") + f"  [{rule}]")
    print(("設定案を書き出しました: " if ja else "proposed configuration written to ") + str(args.config_out)
          + ("（編集してから plan と run へ）" if ja else " (edit it, then plan and run)"))
    return OK


# --- plan ------------------------------------------------------------------------------------------

def findings(table: Table, config: Config, packs: Sequence[hints.Pack], ws: Workspace) -> dict[str, Any]:
    """Leak checks, proxies and observations, for plan and run alike: names and counts only."""
    scanned = config.with_role("keep", "sensitive", "quasi_identifier")
    detectors = hints.leak_rules(packs)
    leaks = []
    for column in scanned if detectors else []:
        found = hints.scan_column(_column_values(table, column.name), packs)
        values = [v for v in _column_values(table, column.name) if v is not None]
        for detector, count in found.items():
            if count:
                leaks.append({"column": column.name, "detector": detector, "count": count, "checked": len(values),
                              "skipped": len(table.rows) - len(values)})
    con = ws.connect()
    try:
        published = [c.name for c in config.with_role("keep", "sensitive")]
        qis = [c.name for c in config.with_role("quasi_identifier")]
        found_proxies = proxies.find_proxies(con, '"main"."records_input"', published, qis)
    finally:
        con.close()
    observations = []
    for column in config.columns:
        column_values = _column_values(table, column.name)
        # what the packs suggest matters only to a column declared keep or sensitive (a
        # quasi-identifier declared otherwise): no other column is looked at for it
        suggested = ([s.role for s in hints.suggest_column(column.name, column_values, packs)]
                     if column.role in ("keep", "sensitive") else [])
        for o in hints.observe_column(column.name, column_values, packs, column.role, suggested):
            observations.append({"column": column.name, "rule": o.rule_id, "check": o.check, "count": o.count,
                                 "of": o.of})
    return {
        "leak_checks": list(detectors),
        "leaks": leaks,
        "proxies": [{"source": p.source, "target": p.target, "support": p.support, "groups": p.groups,
                     "violations": p.violations} for p in found_proxies],
        "proxy_thresholds": {"max_violation_share": proxies.MAX_VIOLATION_SHARE, "min_support": proxies.MIN_SUPPORT,
                             "min_group_size": proxies.MIN_GROUP_SIZE},
        "observations": observations,
    }


def after_release(found: dict[str, Any], config: Config, levels: dict[str, int | None] | None) -> dict[str, Any]:
    """`findings` with, on every leak and proxy, whether it is still in the released file
    (`in_release`), given each quasi-identifier's published level (None: no release, so every
    finding stands):

    - a leak in a kept or sensitive column is published as recorded; in a quasi-identifier, only
      at level 0 (above it the file holds the generalizer's labels, not the text);
    - a kept column determining a quasi-identifier gives it away whatever its level, and the
      more so when it is generalized (or at its root: `*`); a quasi-identifier published as
      recorded (level 0) determining a kept column makes it say nothing more, while above
      level 0 the kept column gives part of it back."""
    out = copy.deepcopy(found)
    qis = {c.name for c in config.with_role("quasi_identifier")}

    def level(column: str) -> int | None:
        return levels.get(column) if levels is not None else None  # None: not known, so the finding stands

    for leak in out["leaks"]:
        leak["in_release"] = leak["column"] not in qis or level(leak["column"]) in (None, 0)
    for proxy in out["proxies"]:
        proxy["in_release"] = not (proxy["source"] in qis and level(proxy["source"]) == 0)
    return out


def _in_release(found: dict[str, Any]) -> tuple[int, int]:
    """Leaks and proxies still in the released file."""
    return (sum(1 for leak in found["leaks"] if leak.get("in_release", True)),
            sum(1 for p in found["proxies"] if p.get("in_release", True)))


def run_plan(args: argparse.Namespace) -> int:
    table, _, _ = _read_input(Path(args.file), args.in_format)
    config, _ = _read_config(Path(args.config), table)
    built = _check_coverage(table, config)
    packs = _packs(args)
    ws, holder = _workspace(args)
    try:
        _load(ws, table, config, built)
        summary = dict(_engine(lambda: ws.plan(config)))
        found = findings(table, config, packs, ws)
    finally:
        if holder is not None:
            holder.cleanup()
    out = {"plan": summary, "findings": found}
    if args.format == "json":
        sys.stdout.write(_json_bytes(out).decode("utf-8"))
        return OK
    ja = args.lang == "ja"
    risk, budget = summary["risk_profile"], summary["budget"]
    print(("計画: " if ja else "plan: ") + f"{args.file}, k={summary['k']}"
          + (f", l={summary['l']}" if summary.get("l") else ""))
    print("  " + report.pad("格子" if ja else "lattice", 10) + f"{summary['lattice_size']} "
          + ("ノード" if ja else "nodes over ")
          + ", ".join(summary["quasi_identifiers"]))
    print("  " + report.pad("抑制上限" if ja else "budget", 10)
          + f"{budget['limit']} {report.UNIT_NAMES[args.lang][budget['unit']]} ({budget['share']:.1%})")
    print("  " + report.pad("リスク" if ja else "risk", 10) + (
        f"1人だけのクラスに{risk['records_in_classes_of_1']}件、k人未満に{risk['records_in_classes_of_2_to_k_minus_1']}件、"
        f"k人以上に{risk['records_in_classes_of_k_or_more']}件" if ja else
        f"{risk['records_in_classes_of_1']} records alone in their class, "
        f"{risk['records_in_classes_of_2_to_k_minus_1']} "
        f"in classes of 2 to k-1, {risk['records_in_classes_of_k_or_more']} in classes of k or more (level 0)"))
    for line in summary.get("warnings", []) + report.finding_lines(found, args.lang):
        print("  " + report.pad("警告" if ja else "warning", 10) + line)
    return OK


# --- run -------------------------------------------------------------------------------------------

def recount(table: Table, config: Config) -> dict[str, Any]:
    """The finished file counted again, from its own bytes read back: records per class of its
    quasi-identifiers (people, when the privacy unit is published), distinct sensitive values."""
    qis = [table.columns.index(c.name) for c in config.with_role("quasi_identifier") if c.name in table.columns]
    sensitive = [table.columns.index(c.name) for c in config.with_role("sensitive") if c.name in table.columns]
    unit = table.columns.index(config.privacy_unit) if config.privacy_unit in table.columns else None
    classes: dict[tuple[Any, ...], list[tuple[Any, ...]]] = {}
    for row in table.rows:
        classes.setdefault(tuple(row[i] for i in qis), []).append(row)
    sizes = {key: len({r[unit] for r in rows}) if unit is not None else len(rows) for key, rows in classes.items()}
    below = sum(len(classes[key]) for key, size in sizes.items() if size < config.k)
    diverse = [min(len({r[i] for r in rows if r[i] is not None}) for i in sensitive)
               for rows in classes.values()] if sensitive else []
    least = min(diverse) if diverse else None
    ok = below == 0
    if config.l is not None and sensitive:
        if config.diversity == "distinct":
            ok = ok and least is not None and least >= config.l
        else:  # entropy of each class's non-null values at least ln l
            ok = ok and all(_entropy([r[i] for r in rows if r[i] is not None]) >= math.log(config.l) - 1e-9
                            for rows in classes.values() for i in sensitive)
    return {"rows": len(table.rows), "classes": len(classes), "smallest_class": min(sizes.values(), default=None),
            "records_below_k": below, "least_diverse": least, "counted": "people" if unit is not None else "records",
            "ok": ok}


def _entropy(values: Sequence[Any]) -> float:
    counts = Counter(values)
    total = sum(counts.values())
    return -sum(n / total * math.log(n / total) for n in counts.values()) if total else 0.0


def run_release(args: argparse.Namespace) -> int:
    source = Path(args.file)
    table, in_format, in_bytes = _read_input(source, args.in_format)
    config, config_bytes = _read_config(Path(args.config), table)
    built = _check_coverage(table, config)
    output = Path(args.output) if args.output else None
    if output is None and not args.dry_run:
        raise Stop(CONFIG_ERROR, "give -o FILE (or --dry-run to measure only)")
    try:
        out_format = format_of(output, args.out_format) if output is not None else (args.out_format or in_format)
    except FileFormatError as error:
        raise Stop(CONFIG_ERROR, str(error)) from None
    packs = _packs(args)
    key_hex = _read_key(Path(args.key)) if args.key else None
    if config.pseudonymized and key_hex is None:
        inherited = os.environ.get(DEFAULT_KEY_ENV)
        if not inherited:
            raise Stop(CONFIG_ERROR, "a column is pseudonymized: give --key FILE (written by keygen)")
        if key_status(inherited) != "ok":
            raise Stop(CONFIG_ERROR, f"the key in {DEFAULT_KEY_ENV} is unusable: {key_status(inherited)} "
                                     "(keygen writes one; give it with --key FILE)")
    ws, holder = _workspace(args, key_hex)
    rows_in, columns_in, in_sha256 = len(table.rows), len(table.columns), _sha256(in_bytes)
    try:
        _load(ws, table, config, built)
        found = findings(table, config, packs, ws)  # plan's own, before dbt starts
        del table, in_bytes, built  # the warehouse holds the rows now: not a second copy beside its release
        outcome = _engine(lambda: ws.release(config))
        released = ws.released_table() if outcome.released else None
    finally:
        if holder is not None:
            holder.cleanup()
    plan_json, _ = parse_plan(outcome.release.get("release_plan"))
    receipt: dict[str, Any] = {
        "tool": "kanon records run", "language": args.lang, "status": outcome.release.get("status"),
        "input": {"file": source.name, "format": in_format, "rows": rows_in, "columns": columns_in,
                  "sha256": in_sha256},
        "configuration": {"file": Path(args.config).name, "sha256": _sha256(config_bytes)},
        "output": {"file": output.name if output else None, "format": out_format, "written": False},
        "release": records_receipt(outcome.release, plan_json or {}),
        "risk_before": outcome.plan.get("risk_profile"),
        "warnings": list(outcome.plan.get("warnings", [])),
    }
    for key in ("report", "report_unique_id", "invocation_id", "what_was_done", "hints"):
        receipt["release"].pop(key, None)  # the working folder's names, and English text the receipt says its own way
    levels = ({c["name"]: c.get("level") for c in receipt["release"].get("columns") or [] if "level" in c}
              if released is not None else None)
    receipt["findings"] = after_release(found, config, levels)
    ja = args.lang == "ja"
    for line in report.finding_lines(receipt["findings"], args.lang, observations=False):
        print("kanon records: " + ("警告: " if ja else "warning: ") + line, file=sys.stderr)
    leaks, proxied = _in_release(receipt["findings"])
    code = REFUSED
    if released is not None:
        data = render_table(released, out_format, seed=config.shuffle_seed.encode("utf-8"))
        counted = recount(parse_table(data, out_format, name=output.name if output else "output"), config)
        receipt["file_recount"] = counted
        if not counted["ok"]:
            receipt["status"] = "REFUSED"
        elif args.refuse_on_findings and (leaks or proxied):
            receipt["status"] = "REFUSED"
            reason = (f"--refuse-on-findings: {leaks}件の漏えい、{proxied}件の代理変数が出力に含まれます" if ja else
                      f"--refuse-on-findings: {leaks} leak(s) and {proxied} prox(ies) in what would be published")
            receipt["refused"] = {"check": "findings", "reason": reason}
            print("kanon records: " + ("公開を拒否しました: " if ja else "refused: ") + reason, file=sys.stderr)
        else:
            code = OK
            receipt["output"].update(rows=counted["rows"], sha256=_sha256(data), written=not args.dry_run)
            if output is not None and not args.dry_run:
                _write(output, data)
    receipt["summary"] = report.done_sentence(receipt, args.lang)
    receipt["exit_code"] = code
    if args.report_json:
        _write(Path(args.report_json), _json_bytes(receipt))
    text = report.render(receipt, args.lang)
    if args.report_text:
        _write(Path(args.report_text), text.encode("utf-8"))
    sys.stdout.write(text)
    return code


# --- keys ----------------------------------------------------------------------------------------------

KEY_BYTES = 32


def _read_key(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise Stop(IO_ERROR, f"cannot read the key {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise Stop(CONFIG_ERROR, f"the key {path} is not hex text") from None
    status = key_status(text)
    if status != "ok":
        raise Stop(CONFIG_ERROR, f"the key {path} is unusable: {status} (keygen writes one)")
    return text


def run_keygen(args: argparse.Namespace) -> int:
    path = Path(args.output)
    if path.exists() and not args.force:
        raise Stop(IO_ERROR, f"{path} exists: a key is not replaced unless --force (pseudonyms made with it "
                             "could no longer be matched)")
    _write(path, (secrets.token_hex(KEY_BYTES) + "\n").encode("ascii"))
    print(f"a {KEY_BYTES * 8}-bit key written to {path} (mode 600): keep it apart from the released files")
    return OK
