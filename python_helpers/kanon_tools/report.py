"""A report for reviewers: one static, self-contained HTML page of the releases in a period.

    python -m kanon_tools report [--report M ...] [--since YYYY-MM-DD] -o report.html

Reads the audit trail through `dbt run-operation kanon.cli_report` (macros/cli/), in a dbt project
that has kanon (--project-dir, --profiles-dir and --target as for `audit`), and writes one HTML
file: no server, no network, the styles inline and the plots (matplotlib, PNG) as data: URIs.

The page shows
- an overview: every release in the period, per model, with its kind, status (REFUSED with the
  failing check, highlighted), k, rows, people suppressed and suppression rate, and a plot of the
  suppression rate and rows released over time per model, refusals marked;
- per count release: the groups decided by ladder step (PASS, GENERALIZE, SUPPRESS), the ladder,
  and the small changes held, release after release;
- per record release: the lattice node chosen and its loss under every metric, the lattice's size
  and the nodes evaluated, the records suppressed by reason, and a plot of the level chosen for
  each quasi-identifier;
- per table with totals: the grid its model publishes, every hidden cell marked PRIMARY or
  SECONDARY, the protection width, and the LP audit's result when `attack --verdict FILE` wrote
  one and `--attack FILE` gives it (the trail does not hold it; without one the page says it is
  not recorded).

Nothing below k and no hidden value: the macro never selects a suppressed group's people or a
hidden cell's count, and a suppressed total below k (it could be one group's count) is shown as
`< k`. Exit codes: 0 the page was written; 1 no project, database, audit trail, or a file that
cannot be written, in one line `kanon report: ...`; 2 bad arguments (argparse).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from pathlib import Path
from string import Template
from typing import Any

from kanon_tools.attack_report import COMMAND as ATTACK_COMMAND
from kanon_tools.audit import cli_operation
from kanon_tools.receipt import SUPPRESSION_REASONS, parse_plan, records_receipt

COMMAND = "report"
MACRO = "kanon.cli_report"
HIDDEN_MARKS = {"primary": "PRIMARY", "secondary": "SECONDARY"}
ATTACK_NOT_RECORDED = ("not recorded: run `python -m kanon_tools attack --report <this table> --verdict FILE` "
                       "and give FILE to `report --attack FILE`")

PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>$title</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #1b1b1b; max-width: 1200px; }
h1 { font-size: 1.6em; } h2 { margin-top: 1.6em; border-bottom: 1px solid #ccc; } h3 { margin-bottom: .3em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: .92em; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th { background: #f2f2f2; } td.name, th.name { text-align: left; }
tr.refused td { background: #fde2e1; color: #8a1111; font-weight: 600; }
td.hidden { background: #eee; color: #555; font-style: italic; text-align: center; }
td.hidden.primary { background: #ffe9c7; } td.hidden.secondary { background: #e4ecff; }
.note { color: #555; font-size: .9em; } img.plot { max-width: 100%; display: block; margin: .5em 0; }
</style>
</head>
<body>
<h1>$title</h1>
<p class="note">$subtitle</p>
$body
</body>
</html>
""")


def load(args: argparse.Namespace, command: str = COMMAND) -> dict[str, Any]:
    """What kanon.cli_report emits for --report and --since."""
    macro_args: dict[str, Any] = {}
    if getattr(args, "reports", None):
        macro_args["reports"] = list(args.reports)
    if getattr(args, "since", None):
        macro_args["since"] = args.since
    data = cli_operation(args, command, MACRO, macro_args)
    return data if isinstance(data, dict) else {}


# --- small pieces ------------------------------------------------------------------------------------

def _show(value: Any) -> str:
    return "-" if value is None else escape(str(value))


def _rate(value: Any) -> str:
    try:
        return f"{float(value):.1%}"
    except (TypeError, ValueError):
        return "-"


def _below_k(value: Any, k: Any) -> str:
    """A suppressed total: shown when at least k (no one group's count), else `< k`."""
    if value is None:
        return "-"
    if isinstance(k, int) and isinstance(value, int) and 0 < value < k:
        return f"&lt; {k}"
    return escape(str(value))


def _when(value: Any) -> str:
    text = "-" if value is None else str(value)[:19]
    return f'<time datetime="{escape(text)}">{escape(text)}</time>'


def _class(css: str) -> str:
    return f' class="{css}"' if css else ""


def _table(header: Iterable[str], rows: Iterable[str], css: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    return f"<table{_class(css)}><tr>{head}</tr>{''.join(rows)}</table>"


def _row(cells: Iterable[str], css: str = "") -> str:
    return f"<tr{_class(css)}>" + "".join(cells) + "</tr>"


def _td(text: str, css: str = "") -> str:
    return f"<td{_class(css)}>{text}</td>"


def _png(figure: Any) -> str:
    """A matplotlib figure as an <img> of an inline PNG (closes the figure)."""
    from matplotlib import pyplot

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    pyplot.close(figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img class="plot" alt="plot" src="data:image/png;base64,{data}">'


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    return pyplot


# --- the sections ------------------------------------------------------------------------------------

def _status(release: Mapping[str, Any]) -> str:
    if release.get("status") == "REFUSED":
        check = release.get("failed_check")
        return "REFUSED" + (f" ({escape(str(check))})" if check else "")
    return _show(release.get("status"))


def overview(releases: list[dict[str, Any]]) -> str:
    rows = []
    for r in releases:
        css = "refused" if r.get("status") == "REFUSED" else ""
        rows.append(_row([_td(_when(r.get("released_at")), "name"), _td(_show(r.get("report")), "name"),
                          _td(_show(r.get("release_kind")), "name"), _td(_status(r), "name"), _td(_show(r.get("k"))),
                          _td(_show(r.get("rows_released"))), _td(_below_k(r.get("people_suppressed"), r.get("k"))),
                          _td(_rate(r.get("suppression_rate")))], css))
    header = ["released at", "model", "kind", "status", "k", "rows", "people suppressed", "suppression rate"]
    return "<h2>Overview</h2>" + _table(header, rows) + _over_time(releases)


def _over_time(releases: list[dict[str, Any]]) -> str:
    """Suppression rate and rows released per model over time; refusals marked with a red x."""
    if not releases:
        return '<p class="note">No release in the period.</p>'
    pyplot = _pyplot()
    from matplotlib.ticker import MaxNLocator

    figure, (rate_axis, rows_axis) = pyplot.subplots(1, 2, figsize=(11, 3.4))
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in releases:
        by_model[str(r.get("report"))].append(r)
    order = {str(r.get("released_at")): i for i, r in enumerate(releases)}
    for model, rs in by_model.items():
        done = [r for r in rs if r.get("status") == "RELEASED"]
        xs = [order[str(r.get("released_at"))] for r in done]
        rate_axis.plot(xs, [float(r.get("suppression_rate") or 0) * 100 for r in done], marker="o", label=model)
        rows_axis.plot(xs, [r.get("rows_released") or 0 for r in done], marker="o", label=model)
        refused = [order[str(r.get("released_at"))] for r in rs if r.get("status") == "REFUSED"]
        if refused:
            rate_axis.scatter(refused, [0] * len(refused), marker="x", color="red", s=80, zorder=3)
    rate_axis.set(title="suppression rate (%) per release; x: refused", xlabel="release (oldest first)")
    rows_axis.set(title="rows released per release", xlabel="release (oldest first)")
    rows_axis.legend(fontsize=8)
    for axis in (rate_axis, rows_axis):
        axis.grid(alpha=.3)
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    return _png(figure)


def counts_section(report: str, releases: list[dict[str, Any]], decisions: list[dict[str, Any]]) -> str:
    released = [r for r in releases if r.get("status") == "RELEASED"]
    latest = released[-1] if released else releases[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    out = [f"<h3>{escape(report)} (counts)</h3>", _ladder(plan or {})]
    mine = [d for d in decisions if d.get("invocation_id") == latest.get("invocation_id")
            and d.get("report_unique_id") == latest.get("report_unique_id")]
    rows = [_row([_td(_show(d.get("ladder_step"))), _td(_show(d.get("decision")), "name"), _td(_show(d.get("groups"))),
                  _td("not shown" if d.get("people") is None else _show(d.get("people")))]) for d in mine]
    out.append(f"<p>Decisions of the latest published release ({_when(latest.get('released_at'))}), by ladder step "
               "(the people of suppressed groups are not shown):</p>")
    out.append(_table(["ladder step", "decision", "groups", "people published"], rows))
    changes = [_row([_td(_when(r.get("released_at")), "name"), _td(_status(r), "name"),
                     _td(_show(r.get("rows_changed_small"))), _td(_show(r.get("rows_held")))],
                    "refused" if r.get("status") == "REFUSED" else "") for r in releases]
    out.append("<p>Small changes (rows changed by 1 to k-1 people since the release before) and rows held:</p>")
    out.append(_table(["released at", "status", "rows changed small", "rows held"], changes))
    return "".join(out)


def _ladder(plan: Mapping[str, Any]) -> str:
    """The ladder: per step, the level of each dimension (of its hierarchy's depth)."""
    ladder, dims = plan.get("ladder"), plan.get("dimensions")
    if not isinstance(ladder, list) or not isinstance(dims, list):
        return "<p>Ladder: not recorded.</p>"
    names = [str(d.get("name")) if isinstance(d, Mapping) else "?" for d in dims]
    depths = [d.get("depth") if isinstance(d, Mapping) else None for d in dims]
    rows = [_row([_td(str(step)), *(_td(_show(level) + (f" of {_show(depth)}" if depth is not None else ""))
                                    for level, depth in zip(levels, depths, strict=False))])
            for step, levels in enumerate(ladder) if isinstance(levels, list)]
    return "<p>The ladder (level per dimension at each step):</p>" + _table(["step", *names], rows)


def records_section(report: str, releases: list[dict[str, Any]]) -> str:
    released = [r for r in releases if r.get("status") == "RELEASED"]
    out = [f"<h3>{escape(report)} (records)</h3>"]
    if not released:
        return out[0] + "<p>No record release was published in the period.</p>"
    latest = released[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    got = records_receipt(latest, plan or {})
    k = got.get("k")
    qis = [c for c in got["columns"] if "level" in c]
    out.append(f"<p>Latest release {_when(latest.get('released_at'))}: k={_show(k)}, loss metric "
               f"{_show(got.get('metric'))}; {_show(got['lattice'].get('nodes_evaluated'))} of "
               f"{_show(got['lattice'].get('size'))} lattice nodes evaluated.</p>")
    out.append(_table(["quasi-identifier", "generalizer", "level chosen", "depth"],
                      [_row([_td(_show(c["name"]), "name"), _td(_show(c.get("generalizer")), "name"),
                             _td(_show(c.get("level"))), _td(_show(c.get("depth")))]) for c in qis]))
    out.append(_table(["loss metric", "loss at the chosen node"],
                      [_row([_td(_show(name) + (" (chosen by)" if name == got.get("metric") else ""), "name"),
                             _td(_show(value))]) for name, value in got["loss"].items()]))
    suppressed = got["records"]["suppressed"]
    out.append(_table(["records suppressed", *SUPPRESSION_REASONS, "total"],
                      [_row([_td("records", "name"), *(_td(_below_k(suppressed.get(reason), k))
                                                       for reason in SUPPRESSION_REASONS),
                             _td(_below_k(suppressed.get("total"), k))])]))
    if qis:
        pyplot = _pyplot()
        from matplotlib.ticker import MaxNLocator

        figure, axis = pyplot.subplots(figsize=(6, .5 + .45 * len(qis)))
        names = [str(c["name"]) for c in qis]
        axis.barh(names, [c.get("depth") or 0 for c in qis], color="#dddddd", label="depth")
        axis.barh(names, [c.get("level") or 0 for c in qis], color="#3b6fb6", label="level chosen")
        axis.set(xlabel="generalization level", title="levels chosen per quasi-identifier")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.legend(fontsize=8)
        out.append(_png(figure))
    return "".join(out)


def attack_verdicts(report: str, attacks: Sequence[Mapping[str, Any]]) -> str:
    """The LP audits (`attack --verdict FILE`) that covered `report`, as HTML: how many hidden
    cells each could work out, when (a <time>), with which reports; 'not recorded' without one."""
    said = []
    for verdict in attacks:
        if report not in (verdict.get("reports") or []):
            continue
        outcome = {"OK": "OK, no hidden cell can be worked out",
                   "FAIL": f"FAIL, {verdict.get('found')} hidden cell(s) can be worked out"
                           f" ({verdict.get('exact')} exactly)"}.get(str(verdict.get("verdict")),
                                                                     "the table contradicts itself")
        width = verdict.get("protection") or 0
        if width and verdict.get("verdict") == "FAIL":
            outcome += f" or narrowed below {width:g}"
        said.append(f"{escape(outcome)} (audited <time>{escape(str(verdict.get('audited_at')))}</time>, with "
                    f"{escape(', '.join(map(str, verdict.get('reports') or [])))})")
    return "; ".join(said) if said else escape(ATTACK_NOT_RECORDED)


def table_section(report: str, releases: list[dict[str, Any]], grid: Mapping[str, Any] | None,
                  attacks: Sequence[Mapping[str, Any]] = ()) -> str:
    latest = releases[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    out = [f"<h3>{escape(report)} (table with totals)</h3>",
           f"<p>Protection width: {_show((plan or {}).get('protection') or 'none beyond k')}. "
           f"LP audit (attack): {attack_verdicts(report, attacks)}.</p>"]
    if grid is None or grid.get("missing"):
        return "".join(out) + f"<p>Grid: {_show((grid or {}).get('missing', 'not read'))}.</p>"
    dims = list(grid.get("dimensions") or [])
    cells = list(grid.get("cells") or [])
    if len(dims) != 2:
        rows = [_row([*(_td(_show(node[0]), "name") for node in cell[0]), _cell(cell)]) for cell in cells]
        return "".join(out) + _table([*dims, str(grid.get("count_column"))], rows, "grid")
    # rows by the first dimension, columns by the second, leaves first then totals (higher levels)
    row_keys = sorted({(c[0][0][1], str(c[0][0][0])) for c in cells})
    col_keys = sorted({(c[0][1][1], str(c[0][1][0])) for c in cells})
    at = {((c[0][0][1], str(c[0][0][0])), (c[0][1][1], str(c[0][1][0]))): c for c in cells}
    rows = [_row([_td(f"<b>{escape(r[1])}</b>", "name"),
                  *(_cell(at[(r, c)]) if (r, c) in at else _td("") for c in col_keys)]) for r in row_keys]
    header = [f"{dims[0]} \\ {dims[1]}", *(c[1] for c in col_keys)]
    return "".join(out) + _table(header, rows, "grid") + (
        '<p class="note">PRIMARY: below k; SECONDARY: hidden so that no primary can be worked out from the '
        "totals. A hidden cell's count is never read.</p>")


def _cell(cell: list[Any]) -> str:
    status = str(cell[2])
    if status in HIDDEN_MARKS:
        return _td(HIDDEN_MARKS[status], f"hidden {status}")
    if status != "published" or cell[1] is None:
        return _td(_show(status.upper()), "hidden")
    return _td(escape(str(cell[1])))


def render(data: Mapping[str, Any], title: str = "kanon releases: a report for reviewers",
           period: str = "the whole trail", attacks: Sequence[Mapping[str, Any]] = ()) -> str:
    releases = list(data.get("releases") or [])
    decisions = list(data.get("decisions") or [])
    grids = {g.get("report_unique_id"): g for g in data.get("tables") or []}
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in releases:
        by_model[str(r.get("report_unique_id"))].append(r)
    sections: dict[str, list[str]] = {"counts": [], "records": [], "table": []}
    for unique_id, rs in by_model.items():
        kinds = [r.get("release_kind") for r in rs if r.get("release_kind")]
        kind = kinds[-1] if kinds else None
        name = str(rs[-1].get("report"))
        if kind == "counts":
            sections["counts"].append(counts_section(name, rs, decisions))
        elif kind == "records":
            sections["records"].append(records_section(name, rs))
        elif kind == "table":
            sections["table"].append(table_section(name, rs, grids.get(unique_id), attacks))
    body = [overview(releases)]
    for heading, key in (("Count releases", "counts"), ("Record releases", "records"),
                         ("Tables with totals", "table")):
        if sections[key]:
            body.append(f"<h2>{heading}</h2>" + "".join(sections[key]))
    subtitle = (f"{len(releases)} release(s) of {len(by_model)} model(s), {escape(period)}, from "
                f"{escape(str(data.get('relation', 'the audit trail')))}. Names and counts only: no count below k, "
                "no hidden value.")
    return PAGE.substitute(title=escape(title), subtitle=subtitle, body="\n".join(body))


def run_report(args: argparse.Namespace) -> int:
    data = load(args)
    period = f"since {args.since}" if args.since else "the whole trail"
    if args.reports:
        period += ", " + ", ".join(args.reports)
    attacks = []
    for path in args.attacks:
        try:
            attacks.append(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            raise SystemExit(f"kanon {COMMAND}: cannot read the attack verdict {path}: {exc}") from None
        if not isinstance(attacks[-1], dict) or attacks[-1].get("command") != ATTACK_COMMAND:
            raise SystemExit(f"kanon {COMMAND}: {path} is not a verdict written by `attack --verdict`")
    page = render(data, period=period, attacks=attacks)
    try:
        Path(args.out).write_text(page, encoding="utf-8")
    except OSError as exc:
        raise SystemExit(f"kanon {COMMAND}: cannot write {args.out}: {exc.strerror or exc}") from None
    print(f"report of {len(data.get('releases') or [])} release(s) written to {args.out}")
    return 0
