"""The plots of `python -m kanon_tools report` (kanon_tools.report), as matplotlib figures.

Each is drawn from numbers the page also prints beside it (kanon_tools.report), so what a plot
shows is on the page as text too: a reader of the text, a screen reader and the tests' privacy
scan see the same numbers as a reader of the picture. Nothing here reads a count the page does
not print: a suppressed total below k is drawn as no bar, marked `< k`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# what the grid picture colours each cell by: a published cell, a published total (a level above
# 0 on some dimension), a primary and a secondary suppression, anything else hidden
GRID_COLOURS = {"published": "#ffffff", "total": "#e6e6e6", "primary": "#f5a623", "secondary": "#4a7fd4",
                "hidden": "#9e9e9e"}
GRID_MARKS = {"primary": "P", "secondary": "S", "hidden": "·"}
# a grid larger than this is described in words: a picture of it would show no cell
GRID_MAX_CELLS = 10_000
# cells written into the picture (counts, marks) only up to this many: beyond, colours alone
GRID_MAX_LABELLED = 400


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    return plt


def over_time(releases: Sequence[Mapping[str, Any]]) -> Any:
    """Suppression rate and rows released per model, against the release's number in the period
    (1 the oldest, the overview's `#`), refusals marked with a red x; None when no model has two
    releases in the period (one dot per model is no trend: the sections show each release)."""
    per_model: dict[str, list[tuple[int, Mapping[str, Any]]]] = {}
    for number, r in enumerate(releases, start=1):
        per_model.setdefault(str(r.get("report")), []).append((number, r))
    if not per_model or max(len(rs) for rs in per_model.values()) < 2:
        return None
    plt = pyplot()
    figure, (rate_axis, rows_axis) = plt.subplots(1, 2, figsize=(11, 3.4))
    for model, rs in per_model.items():
        done = [(n, r) for n, r in rs if r.get("status") == "RELEASED"]
        xs = [n for n, _ in done]
        rate_axis.plot(xs, [float(r.get("suppression_rate") or 0) * 100 for _, r in done], marker="o", label=model)
        rows_axis.plot(xs, [r.get("rows_released") or 0 for _, r in done], marker="o", label=model)
        refused = [n for n, r in rs if r.get("status") == "REFUSED"]
        if refused:
            rate_axis.scatter(refused, [0] * len(refused), marker="x", color="red", s=80, zorder=3)
    rate_axis.set(title="suppression rate (%) per release; x: refused")
    rows_axis.set(title="rows released per release")
    rows_axis.legend(fontsize=8)
    for axis in (rate_axis, rows_axis):
        number_releases(axis, len(releases))
        axis.set_ylim(bottom=0)  # from zero: one value alone is not drawn as a band around itself
        axis.grid(alpha=.3)
    return figure


def number_releases(axis: Any, count: int) -> None:
    """An x axis of release numbers 1..count: whole numbers only, each release half a step from
    the edges (matplotlib's default around one point is -0.045 to 0.045)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_xlim(0.5, count + 0.5)
    if count <= 20:
        axis.set_xticks(range(1, count + 1))
    else:
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
    axis.set_xlabel("release # (the overview's first column; 1 the oldest)")


def first_look(bars: Sequence[tuple[str, int | None, str, str]], bars_title: str, sizes: Mapping[str, Any] | None,
               size_labels: tuple[str, str]) -> Any:
    """One release at a glance: on the left `bars` (label, value or None where the page prints no
    number, colour, what the page prints), on the right how many released cells have each size."""
    plt = pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.2), gridspec_kw={"width_ratios": [1, 1.5]})
    labels = [label for label, _, _, _ in bars]
    values = [value or 0 for _, value, _, _ in bars]
    left.barh(labels, values, color=[colour for _, _, colour, _ in bars])
    left.invert_yaxis()
    top = max(values, default=0) or 1
    for i, (_, value, _, text) in enumerate(bars):
        left.text(value or 0, i, f" {value:,}" if value is not None else f" {text}", va="center", fontsize=8)
    left.set_xlim(0, top * 1.3)
    left.set_title(bars_title, fontsize=10)
    left.grid(axis="x", alpha=.3)
    cell_sizes(right, sizes, size_labels)
    figure.tight_layout()
    return figure


def size_bins(sizes: Mapping[str, Any]) -> list[tuple[str, int]]:
    """Every size from k to the largest (k + 20 meaning "k + 20 or more"), with how many cells
    have it (0 where none), a published zero first; sizes below k are left out whatever comes."""
    k, top = int(sizes["k"]), int(sizes["top"])
    counted = {int(size): int(n) for size, n in sizes.get("sizes") or []}
    bins: list[tuple[str, int]] = [("0", counted[0])] if 0 in counted else []
    # at least k to k + 5, so that cells all at k read as a bar among empty ones
    largest = max(max(counted, default=k), min(top, k + 5))
    # from k up: a size from 1 to k - 1, had one reached the page, is neither drawn nor printed
    bins += [(f"≥ {size}" if size == top else str(size), counted.get(size, 0)) for size in range(k, largest + 1)]
    return bins


def sizes_only(sizes: Mapping[str, Any] | None, labels: tuple[str, str]) -> Any:
    figure, axis = pyplot().subplots(figsize=(6.6, 3.2))
    cell_sizes(axis, sizes, labels)
    figure.tight_layout()
    return figure


def cell_sizes(axis: Any, sizes: Mapping[str, Any] | None, labels: tuple[str, str]) -> None:
    if not sizes or sizes.get("missing"):
        axis.text(.5, .5, f"sizes: {(sizes or {}).get('missing', 'not read')}", ha="center", va="center")
        axis.set_axis_off()
        return
    bins = size_bins(sizes)
    k = str(sizes["k"])
    colours = ["#c0392b" if label == k else "#3b6fb6" for label, _ in bins]
    axis.bar(range(len(bins)), [n for _, n in bins], color=colours)
    axis.set_xticks(range(len(bins)), [label for label, _ in bins], rotation=90 if len(bins) > 12 else 0, fontsize=8)
    axis.set(xlabel=f"{labels[0]} (k = {k}, in red)", ylabel=labels[1])
    axis.set_title(f"{labels[1]} at each size", fontsize=10)
    from matplotlib.ticker import MaxNLocator

    axis.yaxis.set_major_locator(MaxNLocator(integer=True))
    axis.grid(axis="y", alpha=.3)


def grid_keys(cells: Sequence[Sequence[Any]]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, str]]]:
    """The rows (every dimension but the last) and columns (the last) of a table's picture, leaves
    first then totals: by level, then label."""
    rows = sorted({tuple((node[1], str(node[0])) for node in cell[0][:-1]) for cell in cells})
    columns = sorted({(cell[0][-1][1], str(cell[0][-1][0])) for cell in cells})
    return rows, columns


def grid_status(cell: Sequence[Any]) -> str:
    status = str(cell[2])
    if status == "published" and cell[1] is not None:
        return "total" if any(node[1] for node in cell[0]) else "published"
    return status if status in ("primary", "secondary") else "hidden"


def grid_picture(grid: Mapping[str, Any]) -> Any:
    """The grid a table publishes as a picture: rows by every dimension but the last, columns by
    the last, each cell coloured by what it is (published, a total, PRIMARY, SECONDARY), hidden
    ones marked P and S and small grids' published cells with their count; None when the grid is
    too large to show a cell."""
    cells = list(grid.get("cells") or [])
    dims = [str(d) for d in grid.get("dimensions") or []]
    rows, columns = grid_keys(cells)
    if not cells or len(dims) < 2 or len(rows) * len(columns) > GRID_MAX_CELLS:
        return None
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    codes = list(GRID_COLOURS)
    at = {(tuple((n[1], str(n[0])) for n in c[0][:-1]), (c[0][-1][1], str(c[0][-1][0]))): c for c in cells}
    matrix = [[codes.index(grid_status(at[(r, c)])) if (r, c) in at else codes.index("hidden") for c in columns]
              for r in rows]
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(min(11, 2 + .75 * len(columns)), min(12, 1.2 + .32 * len(rows))))
    axis.imshow(matrix, cmap=ListedColormap(list(GRID_COLOURS.values())), vmin=0, vmax=len(codes) - 1,
                aspect="auto", interpolation="nearest")
    if len(rows) * len(columns) <= GRID_MAX_LABELLED:
        for i, r in enumerate(rows):
            for j, c in enumerate(columns):
                cell = at.get((r, c))
                status = grid_status(cell) if cell else "hidden"
                text = GRID_MARKS.get(status) or f"{cell[1] if cell else ''}"
                axis.text(j, i, text, ha="center", va="center", fontsize=8,
                          color="white" if status in ("secondary", "hidden") else "black")
    axis.set_xticks(range(len(columns)), [label[:18] for _, label in columns], rotation=45, ha="right", fontsize=8)
    axis.set_yticks(range(len(rows)), [" / ".join(label[:18] for _, label in r) for r in rows], fontsize=8)
    axis.set_xticks([x - .5 for x in range(len(columns) + 1)], minor=True)
    axis.set_yticks([y - .5 for y in range(len(rows) + 1)], minor=True)
    axis.grid(which="minor", color="#bbbbbb", linewidth=.5)
    axis.tick_params(which="minor", length=0)
    axis.set(xlabel=dims[-1], ylabel=" / ".join(dims[:-1]))
    shown = {status: sum(1 for c in cells if grid_status(c) == status) for status in GRID_COLOURS}
    axis.legend(handles=[Patch(facecolor=colour, edgecolor="#888888", label=f"{status} ({shown[status]})")
                         for status, colour in GRID_COLOURS.items() if shown[status]],
                loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    axis.set_title("the grid as published: P primary (below k), S secondary", fontsize=10)
    return figure


def noise_distribution(distribution: Sequence[tuple[int, float]], title: str, label: str = "v") -> Any:
    """A noisy release's noise: the probability of each value added to a count (what the page
    prints beside it, from the release's plan)."""
    plt = pyplot()
    figure, axis = plt.subplots(figsize=(5, 2.6))
    values = [v for v, _ in distribution]
    axis.bar(values, [p for _, p in distribution], color="#3b6fb6")
    axis.set_xticks(values)
    axis.set_xlabel(f"{label}, added to a count")
    axis.set_ylabel("probability")
    axis.set_title(title, fontsize=10)
    axis.grid(axis="y", alpha=.3)
    figure.tight_layout()
    return figure
