"""The receipt of one release: what was done, under which guarantee, and what it cost, from the audit trail.

    python -m kanon_tools receipt --report people_extract [--invocation ID] [--format text|json] [--out FILE]

Reads the release's summary row and plan through `dbt run-operation kanon.cli_release_receipt`
(macros/cli/), in a dbt project that has kanon (--project-dir, --profiles-dir and --target as for
`audit`: the trail is wherever that project's graph puts it). The latest release of the report,
or the one of --invocation. --report is the model's name or its unique id.

For a record-level release (release kind 'records') the receipt reads the plan the release
recorded: k, l and its diversity, the privacy unit, the suppression budget, every column's role
and generalizer, the lattice node chosen and its loss, how much of the lattice was searched,
records in, out and suppressed by reason, the equivalence classes, hints (one more
generalization step on a column would rescue so many suppressed records), and, for a refused
release, the failing check. For other kinds (counts, hand_written) it gives the summary row's
status and counts, and the plan when there is one. Names and counts only, never a value of the
data: the plan holds none, and only its known fields are copied.

Exit codes: 0 the receipt was printed (or written to --out); 1 no project, database, audit trail
or such release, or a file that cannot be written, in one line `kanon receipt: ...`; 2 bad
arguments (argparse).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from kanon_tools.audit import cli_operation

COMMAND = "receipt"
MACRO = "kanon.cli_release_receipt"
SUPPRESSION_REASONS = ("too_small", "not_diverse", "missing_value")
GENERIC_COUNTS = ("rows_released", "cells_in", "cells_suppressed", "people_in", "people_suppressed")
# a count release against the report's previous one (ADR 12); absent from older trails
CHANGE_COUNTS = ("rows_compared", "rows_changed_small", "rows_held", "rows_appeared", "rows_disappeared")


# --- reading the plan: only known fields, each of the type it should have --------------------------

def _int(value: Any) -> int | None:
    """A count: an int (a whole float too); anything else, bool and text included, is None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _number(value: Any) -> int | float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def parse_plan(text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The release's plan as a JSON object, and a note when there is one that cannot be read."""
    if text is None or text == "":
        return None, None
    try:
        plan = json.loads(str(text))
    except ValueError:
        return None, "the release's plan is not valid JSON"
    if not isinstance(plan, dict):
        return None, "the release's plan is not a JSON object"
    return plan, None


# --- the receipt -------------------------------------------------------------------------------------

def receipt(release: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt of a release, from what kanon.cli_release_receipt emitted."""
    plan, note = parse_plan(release.get("release_plan"))
    if release.get("release_kind") == "records":
        out = records_receipt(release, plan or {})
    else:
        out = generic_receipt(release, plan)
    if note:
        out["plan_note"] = note
    return out


def _identity(release: Mapping[str, Any]) -> dict[str, Any]:
    return {key: release.get(key) for key in ("report", "report_unique_id", "invocation_id", "released_at", "status",
                                              "release_kind")}


def _refused(release: Mapping[str, Any], plan: Mapping[str, Any]) -> dict[str, Any] | None:
    """The failing check and why: the plan's, else the summary row's for a REFUSED release."""
    refused = plan.get("refused")
    if isinstance(refused, Mapping):
        return {"check": _text(refused.get("check")), "reason": _text(refused.get("reason"))}
    if release.get("status") == "REFUSED":
        return {"check": release.get("failed_check"), "reason": release.get("reason")}
    return None


def _suppressed(plan: Mapping[str, Any], unit: str) -> dict[str, int | None]:
    """{reason: records (or people) suppressed for it} and their total."""
    by_reason = _mapping(plan.get("suppressed"))
    counts: dict[str, int | None] = {reason: _int(_mapping(by_reason.get(reason)).get(unit))
                                     for reason in SUPPRESSION_REASONS}
    known = [count for count in counts.values() if count is not None]
    total: int | None = sum(known) if known else None
    if total is None and unit == "records":
        records_in, records_out = _int(plan.get("records_in")), _int(plan.get("records_out"))
        total = records_in - records_out if records_in is not None and records_out is not None else None
    return {"total": total, **counts}


def _columns(plan: Mapping[str, Any], node: Mapping[str, int | None]) -> list[dict[str, Any]]:
    columns = []
    for item in _list(plan.get("columns")):
        column = _mapping(item)
        name = _text(column.get("name"))
        if name is None:
            continue
        entry: dict[str, Any] = {"name": name, "role": _text(column.get("role"))}
        if column.get("generalizer") is not None or entry["role"] == "quasi_identifier":
            entry.update(generalizer=_text(column.get("generalizer")), depth=_int(column.get("depth")),
                         level=node.get(name))
        if column.get("pseudonym") is not None:
            entry["pseudonym"] = column.get("pseudonym") is True
        columns.append(entry)
    return columns


def _classes(plan: Mapping[str, Any]) -> dict[str, int | None]:
    """The equivalence classes formed: all of them (the plan's `classes`), released and suppressed."""
    total, suppressed = _int(plan.get("classes")), _int(plan.get("classes_suppressed"))
    released = total - suppressed if total is not None and suppressed is not None else None
    return {"total": total, "released": released, "suppressed": suppressed}


def _rescues(plan: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{column, records}]: one more generalization step on the column would rescue so many
    suppressed records; the most first."""
    rescues = []
    for item in _list(plan.get("rescue")):
        rescue = _mapping(item)
        column, records = _text(rescue.get("column")), _int(rescue.get("records"))
        if column is not None and records:
            rescues.append({"column": column, "records": records})
    return sorted(rescues, key=lambda r: (-r["records"], r["column"]))


def _hints(plan: Mapping[str, Any]) -> list[str]:
    return [f"one more generalization step on {r['column']} would rescue {r['records']} suppressed "
            f"record{'' if r['records'] == 1 else 's'}" for r in _rescues(plan)]


def at_root(column: Mapping[str, Any]) -> bool:
    """Whether a quasi-identifier is published at its root: one value for every record."""
    return column.get("level") is not None and column.get("level") == column.get("depth")


def records_level_text(column: Mapping[str, Any]) -> str:
    """How a quasi-identifier is published at its level: as recorded at level 0; one value for
    every record at its root (`*`, or a hierarchy's own root; a column without a generalizer is
    then suppressed); else its generalizer's level."""
    level, depth, generalizer = column.get("level"), column.get("depth"), column.get("generalizer")
    if level == 0:
        return f"as recorded (level 0 of {_show(depth)})"
    if at_root(column):
        where = f"(level {level} of {depth})"
        if generalizer == "suppression":
            return f"suppressed: * for every record {where}"
        if generalizer == "hierarchy":
            return f"fully generalized: its hierarchy's root for every record {where}"
        return f"fully generalized: * for every record {where}"
    return f"{_show(generalizer)} at level {_show(level)} of {_show(depth)}"


def _and(parts: list[str]) -> str:
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _generalized(columns: list[dict[str, Any]]) -> str:
    moved = [c for c in columns if c.get("level")]
    steps = [f"{c['name']} to its root (level {c['level']} of {c['depth']})" if at_root(c) else
             f"{c['name']} to level {c['level']}" + (f" of {c['depth']}" if c.get("depth") is not None else "")
             for c in moved if not (at_root(c) and c.get("generalizer") == "suppression")]
    suppressed = [c["name"] for c in moved if at_root(c) and c.get("generalizer") == "suppression"]
    if not moved:
        return " with every quasi-identifier as recorded" if any("level" in c for c in columns) else ""
    text = " after generalizing " + _and(steps) if steps else ""
    if suppressed:
        text += (" and" if steps else "") + " suppressing " + _and(suppressed) + " (* for every record)"
    return text


def records_receipt(release: Mapping[str, Any], plan: Mapping[str, Any]) -> dict[str, Any]:
    """The receipt of a record-level release (release kind 'records'), from its plan."""
    k = _int(plan.get("k"))
    k = k if k is not None else release.get("k")
    l_value, diversity = _int(plan.get("l")), _text(plan.get("diversity"))
    node = {str(name): _int(level) for name, level in _mapping(plan.get("node")).items()}
    columns = _columns(plan, node)
    records_out = _int(plan.get("records_out"))
    suppressed = {"records": _suppressed(plan, "records"), "people": _suppressed(plan, "people")}
    records = {
        "in": _int(plan.get("records_in")),
        "out": records_out if records_out is not None else release.get("rows_released"),
        "suppressed": suppressed["records"],
    }
    people_in = _int(plan.get("people_in"))
    people = {"in": people_in if people_in is not None else release.get("people_in"),
              "suppressed": suppressed["people"]}
    budget_plan = plan.get("budget")
    budget = None
    if isinstance(budget_plan, Mapping):
        unit = _text(budget_plan.get("unit"))
        budget = {"share": _number(budget_plan.get("share")), "unit": unit, "limit": _int(budget_plan.get("limit")),
                  "used": suppressed[unit]["total"] if unit in suppressed else None}
    refused = _refused(release, plan)
    out = _identity(release)
    out.update({
        "what_was_done": _records_sentence(release.get("status"), k, l_value, diversity, columns, records, refused),
        "k": k, "l": l_value, "diversity": diversity, "privacy_unit": _text(plan.get("privacy_unit")),
        "budget": budget,
        "metric": _text(plan.get("metric")),
        "missing_value_policy": _text(plan.get("missing_value_policy")),
        "columns": columns,
        "node": node,
        "loss": {str(name): _number(value) for name, value in _mapping(plan.get("loss")).items()},
        "lattice": {"size": _int(plan.get("lattice_size")), "nodes_evaluated": _int(plan.get("nodes_evaluated"))},
        "records": records,
        "people": people,
        "classes": _classes(plan),
        "hints": _hints(plan),
        "rescue": _rescues(plan),
        "refused": refused,
        "policy_fingerprint": release.get("policy_fingerprint"),
    })
    return out


def _records_sentence(status: Any, k: Any, l_value: int | None, diversity: str | None, columns: list[dict[str, Any]],
                      records: Mapping[str, Any], refused: Mapping[str, Any] | None) -> str:
    if status == "REFUSED":
        return _refused_sentence(refused)
    if status != "RELEASED":
        return f"Status {_show(status)}: see the audit trail."
    done = "Released " + (f"{records['out']} of {records['in']} records" if records["in"] is not None
                          else f"{records['out']} records")
    done += f" in {k}-anonymous classes" if k is not None else ""
    if l_value is not None:
        done += f", {l_value}-diverse" + (f" ({diversity})" if diversity else "")
    done += _generalized(columns)
    suppressed = records["suppressed"]["total"]
    return done + (f"; {suppressed} record{'' if suppressed == 1 else 's'} suppressed." if suppressed is not None
                   else ".")


def _refused_sentence(refused: Mapping[str, Any] | None) -> str:
    if not refused or not (refused.get("check") or refused.get("reason")):
        return "Refused: nothing was published."
    check = f"check {refused['check']}" if refused.get("check") else "refused"
    reason = f": {refused['reason']}" if refused.get("reason") else ""
    return f"Refused: nothing was published ({check}{reason})."


def generic_receipt(release: Mapping[str, Any], plan: dict[str, Any] | None) -> dict[str, Any]:
    """The receipt of an aggregate release (counts, hand_written, or a kind this tool does not know)."""
    counts = {name: release.get(name) for name in GENERIC_COUNTS}
    refused = _refused(release, {})
    status = release.get("status")
    if status == "RELEASED":
        rows = counts["rows_released"]
        done = f"Released {rows} row{'' if rows == 1 else 's'}, each describing at least {release.get('k')} people"
        if counts["cells_in"] is not None and counts["cells_suppressed"] is not None:
            done += f"; {counts['cells_suppressed']} of {counts['cells_in']} cells suppressed"
        done += "."
    elif status == "REFUSED":
        done = _refused_sentence(refused)
    else:
        done = f"Status {_show(status)}: see the audit trail."
    out = _identity(release)
    changes = {name: release.get(name) for name in CHANGE_COUNTS}
    if changes["rows_changed_small"]:
        held = changes["rows_held"] or 0
        done += (f" {changes['rows_changed_small']} row(s) changed by 1 to k-1 people since the previous release"
                 + (f"; {held} held at their previous value." if held else ", published as they are."))
    out.update({"what_was_done": done, "k": release.get("k"), "counts": counts, "changes": changes,
                "refused": refused, "policy_fingerprint": release.get("policy_fingerprint"), "plan": plan})
    return out


# --- text -----------------------------------------------------------------------------------------------

def _show(value: Any) -> str:
    return "-" if value is None else str(value)


def render_text(out: Mapping[str, Any]) -> str:
    """The receipt for a person: one labelled line per fact."""
    lines = [f"Receipt of {out.get('report')} ({_show(out.get('release_kind'))} release), "
             f"invocation {_show(out.get('invocation_id'))}"]

    def add(label: str, value: str) -> None:
        lines.append(f"  {label:<14}{value}")

    add("released at", _show(out.get("released_at")))
    add("status", _show(out.get("status")))
    add("what was done", _show(out.get("what_was_done")))
    refused = out.get("refused")
    if refused:
        add("refused", f"check {_show(refused.get('check'))}: {_show(refused.get('reason'))}")
    if out.get("release_kind") == "records":
        _records_text(out, add)
    else:
        counts = out.get("counts") or {}
        add("k", _show(out.get("k")))
        add("counts", ", ".join(f"{name} {_show(counts.get(name))}" for name in GENERIC_COUNTS))
        changes = out.get("changes") or {}
        if any(changes.get(name) is not None for name in CHANGE_COUNTS):
            add("since before", ", ".join(f"{name} {_show(changes.get(name))}" for name in CHANGE_COUNTS))
        add("plan", "-" if out.get("plan") is None else json.dumps(out["plan"], sort_keys=True))
    add("policy", _show(out.get("policy_fingerprint")))
    if out.get("plan_note"):
        add("note", str(out["plan_note"]))
    return "\n".join(lines) + "\n"


def _records_text(out: Mapping[str, Any], add: Callable[[str, str], None]) -> None:
    privacy = f"k={_show(out.get('k'))}"
    if out.get("l") is not None:
        privacy += f", l={out['l']}" + (f" ({out['diversity']})" if out.get("diversity") else "")
    privacy += f", privacy unit {out['privacy_unit']}" if out.get("privacy_unit") else ", one record per person"
    add("privacy", privacy)
    budget = out.get("budget")
    if budget:
        share, used = budget.get("share"), f"used {_show(budget.get('used'))}"
        if share is None:
            add("budget", f"none: any share of the {_show(budget.get('unit'))} may be suppressed; {used}")
        else:
            add("budget", f"at most {share:.1%} of the {_show(budget.get('unit'))} "
                          f"(limit {_show(budget.get('limit'))}), {used}")
    if out.get("metric") or out.get("missing_value_policy"):
        add("settings",
            f"loss metric {_show(out.get('metric'))}, missing values {_show(out.get('missing_value_policy'))}")
    for index, column in enumerate(out.get("columns") or []):
        text = f"{column['name']}: {_show(column.get('role'))}"
        if "level" in column:
            text += ", " + records_level_text(column)
        if column.get("pseudonym"):
            text += ", pseudonymized"
        add("columns" if index == 0 else "", text)
    loss = out.get("loss") or {}
    if loss:
        add("loss", ", ".join(f"{name} {_show(value)}" + (" (the metric)" if name == out.get("metric") else "")
                              for name, value in loss.items()))
    lattice = out.get("lattice") or {}
    add("lattice", f"{_show(lattice.get('nodes_evaluated'))} of {_show(lattice.get('size'))} nodes evaluated")
    records = out.get("records") or {}
    suppressed = records.get("suppressed") or {}
    by_reason = ", ".join(f"{reason} {_show(suppressed.get(reason))}" for reason in SUPPRESSION_REASONS)
    add("records", f"{_show(records.get('in'))} in, {_show(records.get('out'))} out, "
                   f"{_show(suppressed.get('total'))} suppressed ({by_reason})")
    people = out.get("people") or {}
    people_suppressed = (people.get("suppressed") or {}).get("total")
    if people.get("in") is not None or people_suppressed is not None:
        add("people", f"{_show(people.get('in'))} in, {_show(people_suppressed)} suppressed")
    classes = out.get("classes") or {}
    add("classes", f"{_show(classes.get('total'))} formed, {_show(classes.get('released'))} released, "
                   f"{_show(classes.get('suppressed'))} suppressed")
    for index, hint in enumerate(out.get("hints") or []):
        add("hints" if index == 0 else "", hint)


# --- the command ------------------------------------------------------------------------------------------

def run_receipt(args: argparse.Namespace) -> int:
    macro_args: dict[str, Any] = {"report": args.report}
    if args.invocation:
        macro_args["invocation_id"] = args.invocation
    out = receipt(cli_operation(args, COMMAND, MACRO, macro_args))
    text = json.dumps(out, indent=2) + "\n" if args.format == "json" else render_text(out)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"kanon {COMMAND}: cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"receipt of {out.get('report')} ({out.get('status')}, invocation {out.get('invocation_id')}) "
          f"written to {args.out}")
    return 0
