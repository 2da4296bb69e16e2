"""A report for reviewers: one static, self-contained HTML page of the releases in a period.

    python -m kanon_tools report [--report M ...] [--since YYYY-MM-DD] -o report.html

Reads the audit trail through `dbt run-operation kanon.cli_report` (macros/cli/), in a dbt project
that has kanon (--project-dir, --profiles-dir and --target as for `audit`), and writes one HTML
file: no server, no network, the styles inline and the plots (matplotlib, PNG) as data: URIs.

The page shows
- an overview: every release in the period, numbered (1 the oldest), per model, with its kind,
  status (REFUSED with the failing check, highlighted), k, rows, people suppressed and suppression
  rate, and, where a model has two releases or more, a plot of the suppression rate and rows
  released against the release's number, refusals marked;
- per count release, first what a reviewer looks at (the latest published release's people
  published by decision and suppressed, and how many rows have each size, k, k+1, ...); then the
  groups decided by ladder step (PASS, GENERALIZE, SUPPRESS), the ladder, and the small changes
  held, release after release;
- per record release, first the records published and suppressed by reason and the classes at
  each size; then the lattice node chosen and its loss under every metric, the lattice's size and
  the nodes evaluated, the records suppressed by reason, and a plot of the level chosen for each
  quasi-identifier;
- per table with totals, first the grid as a picture (PRIMARY and SECONDARY cells marked) and
  the cells and totals at each size; then the grid its model publishes, every hidden cell marked
  PRIMARY or SECONDARY, the protection width, and the LP audit's result when `attack --verdict
  FILE` wrote one and `--attack FILE` gives it (the trail does not hold it; without one the page
  says it is not recorded);
- per release of any other kind (a hand-written aggregate, a kind added to kanon), the generic
  section: its releases' summary and the facts its kind declares of its own, as the trail records
  them (`kind_facts`), under the heading and with the facts its descriptor's `report` names.

A kind's section is looked up by the kind's name in `SECTIONS`, which `section` fills; a kind
without one gets the generic section, never nothing. A kind defined outside this module needs no
edit here: its descriptor's `report` says, as data, its heading and the facts its section shows.

Every plot's numbers are printed beside it (kanon_tools.report_plots draws them), and the sizes
are counted in the warehouse (kanon.cli_report), sizes below k never selected.

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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape, unescape
from pathlib import Path
from string import Template
from typing import Any

from kanon_tools import report_plots
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
figure { margin: .5em 0 1em; }
figcaption table { font-size: .85em; margin: .2em 1.5em .4em 0; display: inline-table; vertical-align: top; }
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


def _png(figure: Any, alt: str = "plot") -> str:
    """A matplotlib figure as an <img> of an inline PNG (closes the figure)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80, bbox_inches="tight")
    report_plots.pyplot().close(figure)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f'<img class="plot" alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def _figure(css: str, figure: Any, alt: str, *numbers: str) -> str:
    """A plot with the numbers it draws printed under it, so the page says in text what it shows."""
    return f'<figure class="{css}">{_png(figure, alt)}<figcaption>{"".join(numbers)}</figcaption></figure>'


# per release kind: what a released cell is, and what its size counts (the sizes plot's labels)
SIZE_LABELS = {"counts": ("people per row", "rows"), "records": ("records per class", "classes"),
               "table": ("people per cell or total", "cells and totals")}
# a bar of people or records: (label, value drawn or None where the page prints `< k`, colour, text)
Bar = tuple[str, int | None, str, str]
PUBLISHED, SUPPRESSED = "#3b6fb6", "#9e9e9e"


def _suppressed_bar(label: str, value: Any, k: Any) -> Bar:
    """A suppressed total as the page prints it (`_below_k`): drawn only where it is shown."""
    text = _below_k(value, k)
    shown = isinstance(value, int) and text == escape(str(value))
    return label, value if shown else None, SUPPRESSED, text


def _first_look(kind: str, bars: Sequence[Bar], bars_title: str, sizes: Mapping[str, Any] | None) -> str:
    """A release at a glance: `bars` beside its released cells' sizes, with both as tables."""
    labels = SIZE_LABELS[kind]
    figure = report_plots.first_look([(label, value, colour, unescape(text)) for label, value, colour, text in bars],
                                     bars_title, sizes, labels)
    bars_table = _table(["", bars_title], [_row([_td(escape(label), "name"), _td(text)]) for label, _, _, text in bars])
    return _figure("first-look", figure, f"{bars_title}; {labels[1]} at each size", bars_table,
                   _sizes_table(sizes, labels))


def _sizes_table(sizes: Mapping[str, Any] | None, labels: tuple[str, str]) -> str:
    """How many released cells have each size (report_plots.size_bins: none below k), as a table."""
    if not sizes or sizes.get("missing"):
        return f'<p class="note">Sizes: {_show((sizes or {}).get("missing", "not read"))}.</p>'
    bins = [(label, n) for label, n in report_plots.size_bins(sizes) if n]
    where = "the trail" if sizes.get("source") == "trail" else "what the model publishes now"
    return (_table([labels[0], *(label for label, _ in bins)],
                   [_row([_td(escape(labels[1]), "name"), *(_td(str(n)) for _, n in bins)])], "sizes")
            + f'<p class="note">{escape(labels[1].capitalize())} at each size, from {where}, counted in the '
              "warehouse; none is below k.</p>")


# --- the sections ------------------------------------------------------------------------------------

def _status(release: Mapping[str, Any]) -> str:
    if release.get("status") == "REFUSED":
        check = release.get("failed_check")
        return "REFUSED" + (f" ({escape(str(check))})" if check else "")
    return _show(release.get("status"))


def overview(releases: list[dict[str, Any]]) -> str:
    rows = []
    for number, r in enumerate(releases, start=1):
        css = "refused" if r.get("status") == "REFUSED" else ""
        rows.append(_row([_td(str(number)), _td(_when(r.get("released_at")), "name"),
                          _td(_show(r.get("report")), "name"), _td(_show(r.get("release_kind")), "name"),
                          _td(_status(r), "name"), _td(_show(r.get("k"))),
                          _td(_show(r.get("rows_released"))), _td(_below_k(r.get("people_suppressed"), r.get("k"))),
                          _td(_rate(r.get("suppression_rate")))], css))
    header = ["#", "released at", "model", "kind", "status", "k", "rows", "people suppressed", "suppression rate"]
    return "<h2>Overview</h2>" + _table(header, rows) + _over_time(releases)


def _over_time(releases: list[dict[str, Any]]) -> str:
    """Suppression rate and rows released per model against the release's number; refusals marked."""
    if not releases:
        return '<p class="note">No release in the period.</p>'
    figure = report_plots.over_time(releases)
    if figure is None:
        return ('<p class="note">One release per model in the period: nothing to follow over time yet. '
                "Each release is shown below.</p>")
    return _png(figure, "suppression rate and rows released per release, by release number")


def counts_section(report: str, releases: list[dict[str, Any]], decisions: list[dict[str, Any]],
                   sizes: Mapping[str, Any] | None = None) -> str:
    released = [r for r in releases if r.get("status") == "RELEASED"]
    latest = released[-1] if released else releases[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    mine = [d for d in decisions if d.get("invocation_id") == latest.get("invocation_id")
            and d.get("report_unique_id") == latest.get("report_unique_id")]
    out = [f"<h3>{escape(report)} (counts)</h3>"]
    if released:
        bars: list[Bar] = []
        for decision in ("PASS", "GENERALIZE", "REMAINDER"):
            people = [int(d["people"]) for d in mine if d.get("decision") == decision and d.get("people") is not None]
            if people:
                bars.append((f"{decision}: published", sum(people), PUBLISHED, str(sum(people))))
        bars.append(_suppressed_bar("SUPPRESS: suppressed", latest.get("people_suppressed"), latest.get("k")))
        out.append(f"<p>The latest published release ({_when(latest.get('released_at'))}) at a glance: people "
                   "published by decision (summed over rows: a person in two rows counts twice) and people "
                   "suppressed (distinct, as the overview shows them), and how many rows have each size.</p>")
        out.append(_first_look("counts", bars, "people by decision", sizes))
    out.append(_ladder(plan or {}))
    out.append(_noise((plan or {}).get("noise")))
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


def _noise(noise: Any) -> str:
    """A noisy release's noise (its plan's `noise`, docs/reference/noise.md): what it rests on, the
    standard deviation a reader's margins of error rest on, and the noise's distribution, drawn and
    as a table; for mode dp, what it spent of its budget and what is left. Nothing for an exact release."""
    if not isinstance(noise, Mapping):
        return ""
    variance = noise.get("variance")
    sd = f"{float(variance) ** 0.5:.2f}" if isinstance(variance, int | float) and variance >= 0 else "not recorded"
    if noise.get("mode") == "dp":
        spent, remaining = noise.get("spent") or {}, noise.get("remaining") or {}
        measure = "epsilon" if "epsilon" in spent else "rho"
        shown: list[tuple[str, Any]] = [
            ("mode", "dp (differential privacy)"), ("mechanism", noise.get("mechanism")),
            ("cells per person at most", noise.get("max_cells_per_person")), ("scale", noise.get("scale")),
            ("budget source", spent.get("source")), (f"{measure} spent", spent.get(measure)),
            ("delta spent", spent.get("delta")), (f"{measure} budget", (noise.get("budget") or {}).get(measure)),
            (f"{measure} left", remaining.get(measure)), ("delta left", remaining.get("delta")),
            ("key variable (never the key)", noise.get("key_env")),
            ("variance of a published count", variance), ("standard deviation", sd)]
        intro = ("<p>Differential privacy: every declared cell is its true count (each person in at most the bound's "
                 "cells) plus a keyed draw of the mechanism; cells whose noisy count is below k are not published. "
                 "What the release spent is on the ledger. A reader's margin of error: about two standard "
                 "deviations.</p>")
        title, label = "the noise added to every declared cell", "z"
    else:
        shown = [("mode", noise.get("mode")), ("perturbation table (content hash)", noise.get("ptable")),
                 ("its last count, imax", noise.get("imax")), ("key variable (never the key)", noise.get("key_env")),
                 ("variance of a published count", variance), ("standard deviation", sd),
                 ("privacy budget", "none spent: the Cell Key Method is not differential privacy")]
        intro = ("<p>Noise after k: every published count is its true count plus v, read from the perturbation "
                 "table by the count and the row's cell key (the same people, the same v). Rows perturbed to 0 are "
                 "not published. A reader's margin of error: about two standard deviations.</p>")
        title, label = f"the perturbation of counts of {noise.get('imax')} or more", "v"
    out = [intro, _table(["", ""], [_row([_td(escape(name), "name"), _td(_show(value))]) for name, value in shown])]
    distribution = noise.get("distribution")
    if isinstance(distribution, list) and distribution:
        pairs = [(int(v), float(p)) for v, p in distribution]
        table = _table([label, *(str(v) for v, _ in pairs)],
                       [_row([_td("probability", "name"), *(_td(f"{p:.4f}") for _, p in pairs)])], "sizes")
        out.append(_figure("noise", report_plots.noise_distribution(pairs, title, label),
                           "the noise's distribution", table))
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


def records_section(report: str, releases: list[dict[str, Any]], sizes: Mapping[str, Any] | None = None) -> str:
    released = [r for r in releases if r.get("status") == "RELEASED"]
    out = [f"<h3>{escape(report)} (records)</h3>"]
    if not released:
        return out[0] + "<p>No record release was published in the period.</p>"
    latest = released[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    got = records_receipt(latest, plan or {})
    k = got.get("k")
    qis = [c for c in got["columns"] if "level" in c]
    suppressed = got["records"]["suppressed"]
    published = got["records"].get("out")
    bars: list[Bar] = [("published", published if isinstance(published, int) else None, PUBLISHED, _show(published)),
                       *(_suppressed_bar(f"suppressed: {reason}", suppressed.get(reason), k)
                         for reason in SUPPRESSION_REASONS)]
    out.append(f"<p>The latest published release ({_when(latest.get('released_at'))}) at a glance: records published "
               "and suppressed by reason, and how many classes (records sharing every quasi-identifier) have each "
               "size" + (", in records: with a privacy unit a class is at least k people, and can hold more records"
                         if got.get("privacy_unit") else "") + ".</p>")
    out.append(_first_look("records", bars, "records by decision", sizes))
    out.append(f"<p>Latest release {_when(latest.get('released_at'))}: k={_show(k)}, loss metric "
               f"{_show(got.get('metric'))}; {_show(got['lattice'].get('nodes_evaluated'))} of "
               f"{_show(got['lattice'].get('size'))} lattice nodes evaluated.</p>")
    out.append(_table(["quasi-identifier", "generalizer", "level chosen", "depth"],
                      [_row([_td(_show(c["name"]), "name"), _td(_show(c.get("generalizer")), "name"),
                             _td(_show(c.get("level"))), _td(_show(c.get("depth")))]) for c in qis]))
    out.append(_table(["loss metric", "loss at the chosen node"],
                      [_row([_td(_show(name) + (" (chosen by)" if name == got.get("metric") else ""), "name"),
                             _td(_show(value))]) for name, value in got["loss"].items()]))
    out.append(_table(["records suppressed", *SUPPRESSION_REASONS, "total"],
                      [_row([_td("records", "name"), *(_td(_below_k(suppressed.get(reason), k))
                                                       for reason in SUPPRESSION_REASONS),
                             _td(_below_k(suppressed.get("total"), k))])]))
    if qis:
        from matplotlib.ticker import MaxNLocator

        figure, axis = report_plots.pyplot().subplots(figsize=(6, .5 + .45 * len(qis)))
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
                  attacks: Sequence[Mapping[str, Any]] = (), sizes: Mapping[str, Any] | None = None) -> str:
    latest = releases[-1]
    plan, _ = parse_plan(latest.get("release_plan"))
    out = [f"<h3>{escape(report)} (table with totals)</h3>",
           f"<p>Protection width: {_show((plan or {}).get('protection') or 'none beyond k')}. "
           f"LP audit (attack): {attack_verdicts(report, attacks)}.</p>"]
    if grid is None or grid.get("missing"):
        return "".join(out) + f"<p>Grid: {_show((grid or {}).get('missing', 'not read'))}.</p>"
    dims = list(grid.get("dimensions") or [])
    cells = list(grid.get("cells") or [])
    out.append(_grid_picture(grid, cells))
    if any(r.get("status") == "RELEASED" for r in releases):
        labels = (f"{grid.get('count_column') or 'people'} per cell or total", SIZE_LABELS["table"][1])
        out.append(_figure("first-look", report_plots.sizes_only(sizes, labels), f"{labels[1]} at each size",
                           _sizes_table(sizes, labels)))
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


def _grid_picture(grid: Mapping[str, Any], cells: list[Any]) -> str:
    """The grid as a picture, with its cells counted by what they are (the picture's legend)."""
    figure = report_plots.grid_picture(grid)
    counted = {status: sum(1 for c in cells if report_plots.grid_status(c) == status)
               for status in report_plots.GRID_COLOURS}
    numbers = _table(["cells", *(s for s, n in counted.items() if n)],
                     [_row([_td("as published now", "name"), *(_td(str(n)) for n in counted.values() if n)])])
    if figure is None:
        return (f'<p class="note">The grid ({len(cells)} cells and totals) is too large to draw.</p>' + numbers)
    return _figure("grid-picture", figure, "the grid as published, primary and secondary cells marked", numbers)


def _cell(cell: list[Any]) -> str:
    status = str(cell[2])
    if status in HIDDEN_MARKS:
        return _td(HIDDEN_MARKS[status], f"hidden {status}")
    if status != "published" or cell[1] is None:
        return _td(_show(status.upper()), "hidden")
    return _td(escape(str(cell[1])))


# --- sections by release kind -------------------------------------------------------------------

@dataclass(frozen=True)
class SectionInput:
    """What a kind's section reads besides its model's name and releases: the kind's name (None
    when the trail does not record it), what its descriptor says of its report (cli_report's
    `kinds`: heading, facts, sizes, grid; None for a kind kanon there does not define), the
    trail's decisions, and the model's grid, sizes and LP audits."""

    kind: str | None
    spec: Mapping[str, Any] | None
    decisions: list[dict[str, Any]]
    grid: Mapping[str, Any] | None
    sizes: Mapping[str, Any] | None
    attacks: Sequence[Mapping[str, Any]]


SectionBuilder = Callable[[str, list[dict[str, Any]], SectionInput], str]


@dataclass(frozen=True)
class Section:
    heading: str
    build: SectionBuilder


# the sections built in code, by the name of their release kind (filled by `section`); every other
# kind gets generic_section
SECTIONS: dict[str, Section] = {}


def section(kind: str, heading: str) -> Callable[[SectionBuilder], SectionBuilder]:
    """Registers a builder as the section of the releases of `kind`, under `heading`."""
    def register(build: SectionBuilder) -> SectionBuilder:
        SECTIONS[kind] = Section(heading, build)
        return build
    return register


@section("counts", "Count releases")
def _counts(report: str, releases: list[dict[str, Any]], got: SectionInput) -> str:
    return counts_section(report, releases, got.decisions, got.sizes)


@section("records", "Record releases")
def _records(report: str, releases: list[dict[str, Any]], got: SectionInput) -> str:
    return records_section(report, releases, got.sizes)


@section("table", "Tables with totals")
def _tables(report: str, releases: list[dict[str, Any]], got: SectionInput) -> str:
    return table_section(report, releases, got.grid, got.attacks, got.sizes)


def _kind_facts(release: Mapping[str, Any]) -> dict[str, Any]:
    """The facts a release's kind declared of its own, as the trail records them ({} when none)."""
    try:
        facts = json.loads(release.get("kind_facts") or "{}")
    except ValueError:
        return {}
    return facts if isinstance(facts, dict) else {}


def _fact(stated: Any, k: Any, vouched: bool) -> str:
    """A fact as its long form stated it (a number, a text, or both); a number the kind did not
    vouch for (one its descriptor's report does not name) is shown as `_below_k` shows counts."""
    if not isinstance(stated, Mapping):
        return _show(stated)
    value, text = stated.get("value"), stated.get("text")
    shown = None if value is None else (escape(str(value)) if vouched else _below_k(value, k))
    if shown is not None and text is not None:
        return f"{shown} ({escape(str(text))})"
    return shown if shown is not None else _show(text)


def generic_section(report: str, releases: list[dict[str, Any]], got: SectionInput) -> str:
    """A release of a kind with no section of its own: its releases' summary beside the facts its
    kind declared of its own, the facts its descriptor's report names (with their labels, shown as
    they are) or else every fact the trail recorded (a number below k shown as `< k`)."""
    named = (got.spec or {}).get("facts")
    if isinstance(named, list) and named:
        facts = [(str(f[0]), str(f[1] if len(f) > 1 else f[0])) if isinstance(f, list) else (str(f), str(f))
                 for f in named]
    else:
        facts = [(name, name) for name in sorted({n for r in releases for n in _kind_facts(r)})]
    vouched = bool(named)
    out = [f"<h3>{escape(report)} ({escape(got.kind or 'kind not recorded')})</h3>"]
    if got.spec is None:
        out.append('<p class="note">' + (f"kanon here defines no release kind {escape(repr(got.kind))}"
                                          if got.kind else "The trail does not record this release's kind")
                   + ": its releases are shown as the trail records them.</p>")
    rows = [_row([_td(_when(r.get("released_at")), "name"), _td(_status(r), "name"), _td(_show(r.get("k"))),
                  _td(_show(r.get("rows_released"))), _td(_below_k(r.get("people_suppressed"), r.get("k"))),
                  _td(_rate(r.get("suppression_rate"))),
                  *(_td(_fact(_kind_facts(r).get(name), r.get("k"), vouched)) for name, _ in facts)],
                 "refused" if r.get("status") == "REFUSED" else "") for r in releases]
    header = ["released at", "status", "k", "rows", "people suppressed", "suppression rate",
              *(label for _, label in facts)]
    return "".join(out) + _table(header, rows, "kind-facts")


def _spec(specs: Mapping[str, Any], kind: str | None) -> Mapping[str, Any] | None:
    """What the kind's descriptor says of its report, from cli_report's `kinds` (None: no such kind)."""
    spec = specs.get(kind) if kind is not None else None
    return spec if isinstance(spec, Mapping) else None


def _heading(kind: str | None, spec: Mapping[str, Any] | None) -> str:
    if kind in SECTIONS:
        return SECTIONS[kind].heading
    heading = (spec or {}).get("heading")
    return str(heading) if heading else f"Releases of kind {kind}" if kind else "Releases of an unrecorded kind"


def render(data: Mapping[str, Any], title: str = "kanon releases: a report for reviewers",
           period: str = "the whole trail", attacks: Sequence[Mapping[str, Any]] = ()) -> str:
    releases = list(data.get("releases") or [])
    decisions = list(data.get("decisions") or [])
    grids = {g.get("report_unique_id"): g for g in data.get("tables") or []}
    sizes = {s.get("report_unique_id"): s for s in data.get("sizes") or []}
    specs = data.get("kinds") or {}
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in releases:
        by_model[str(r.get("report_unique_id"))].append(r)
    sections: dict[str | None, list[str]] = defaultdict(list)
    for unique_id, rs in by_model.items():
        kinds = [r.get("release_kind") for r in rs if r.get("release_kind")]
        kind = str(kinds[-1]) if kinds else None
        spec = _spec(specs, kind)
        got = SectionInput(kind, spec, decisions, grids.get(unique_id), sizes.get(unique_id), attacks)
        build = SECTIONS[kind].build if kind in SECTIONS else generic_section
        sections[kind].append(build(str(rs[-1].get("report")), rs, got))
    body = [overview(releases)]
    # the kinds kanon_tools builds sections for first, as registered; then the others by name
    order: list[str | None] = [kind for kind in SECTIONS if kind in sections]
    order += sorted((kind for kind in sections if kind not in SECTIONS), key=lambda kind: (kind is None, kind or ""))
    for kind in order:
        body.append(f"<h2>{escape(_heading(kind, _spec(specs, kind)))}</h2>" + "".join(sections[kind]))
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
