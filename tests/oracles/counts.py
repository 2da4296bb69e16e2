"""A plain-Python reference implementation of `kanon.release_counts`, for the tests (the oracle).

Written from the documented semantics of the release, not from its SQL, so the two can be checked
against each other. It is deliberately naive: every step regroups the remaining events in a
dictionary and recounts them; there is no SQL, no dbt and no warehouse here.

Semantics, in short:

* A hierarchy is a list of rows ``(level_0, ..., level_n)``: ``level_0`` is the leaf as it appears
  in the data, ``level_n`` the single root; its depth is ``n`` (`Hierarchy`, the records
  reference's, refuses what kanon's hierarchy checks refuse).
* At level ``L``, a dimension value ``v`` becomes ``(label, level)``: the hierarchy's label at
  ``L`` when ``v`` is one of its leaves, else (``v`` is NULL or missing from the hierarchy)
  ``(root, depth)``. A dimension without a hierarchy is only ever used at level 0: NULL becomes
  ``('*', 1)`` and any other value ``(v, 0)``.
* ``null_policy='suppress'`` drops every event with a NULL in any dimension before anything else
  (the release records them as suppressed).
* An event whose privacy unit is NULL belongs to nobody that can be counted: it is dropped before
  anything else, measures included (``null_unit='ignore'``; the release counts and warns), unless
  rows are counted (``count_rows``).
* The ladder is a list of level vectors (one level per dimension), the first all zeros. At each
  step the events not yet released are grouped by their ``(label, level)`` per dimension; groups
  of at least ``k`` (distinct non-NULL privacy units, or events with ``count_rows``) are released,
  the rest go on to the next step. Whatever is left after the last step is suppressed.
* ``dominance`` (optional) makes a group thin, whatever its size, when a few people dominate a
  sum: a person's contribution is the sum of ``value`` over their events in the group;
  ``nk`` fires when the ``n`` largest contributions exceed ``k`` % of the total, ``p_percent``
  when the total less the two largest is below ``p`` % of the largest.
* ``remainder=True`` adds one row with every label and level NULL for the suppressed events,
  released only when it too reaches ``k``.

`release_counts` returns a `Release`: the released rows in output column order, and the fate of
every input event (which row released it, or that it was suppressed or dropped), so tests can check
that every event ends in exactly one place and recount each row from the raw events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

# One hierarchy for both references (re-exported: release_counts takes them)
from kanon_tools.dev.records_reference import Hierarchy as Hierarchy

FLAT_ROOT = "*"
"""The root label of a dimension without a hierarchy (a NULL value is released as it)."""

Value = str | None
Event = Mapping[str, Value]
Measure = Callable[[Sequence[Event]], object]
"""An aggregate over the events of one released group, e.g. `count_star` for ``count(*)``."""
Levels = tuple[int, ...]
Key = tuple[tuple[str, int], ...]
"""A group key: one ``(label, level)`` per dimension, in dimension order."""
NullPolicy = Literal["root", "suppress"]
Outcome = Literal["released", "suppressed", "dropped"]


def count_star(events: Sequence[Event]) -> int:
    """The measure ``count(*)``: how many events the group holds."""
    return len(events)


def generalize(value: Value, hierarchy: Hierarchy | None, level: int) -> tuple[str, int]:
    """The ``(label, level)`` a dimension value is released under at `level`."""
    if hierarchy is None:
        if level != 0:
            raise ValueError("a dimension without a hierarchy is only used at level 0")
        return (FLAT_ROOT, 1) if value is None else (value, 0)
    labels = hierarchy.labels_of(value)
    if labels is None:
        return hierarchy.root, hierarchy.depth
    return labels[level], level


def resolve_ladder(
    dimensions: Sequence[str],
    depths: Sequence[int | None],
    ladder: Sequence[Mapping[str, int]] | None,
) -> list[Levels]:
    """The ladder as absolute level vectors, first step all zeros.

    `depths` holds each dimension's hierarchy depth, None for a dimension without hierarchy.
    Without a ladder: one level at a time until every dimension with a hierarchy is at its root,
    always raising the one whose level after the step is the smallest share of its depth, ties to
    the dimension declared first (round-robin when the depths are equal). A user ladder is a list of
    ``{dimension: level}`` steps; dimensions a step does not name keep their previous level, and a
    step that changes nothing is skipped. Dimension names match case-insensitively.
    """
    if len(dimensions) != len(depths):
        raise ValueError("one depth per dimension is required")
    current = [0] * len(dimensions)
    steps: list[Levels] = [tuple(current)]
    if ladder is None:
        while True:
            open_dims = [i for i, depth in enumerate(depths) if depth is not None and current[i] < depth]
            if not open_dims:
                return steps
            # Fraction, not float: (level + 1) / depth compared exactly, first declared on ties.
            best = min(open_dims, key=lambda i: (Fraction(current[i] + 1, depths[i] or 1), i))
            current[best] += 1
            steps.append(tuple(current))

    index = {name.lower(): i for i, name in enumerate(dimensions)}
    for number, step in enumerate(ladder, start=1):
        if not isinstance(step, Mapping) or not step:
            raise ValueError(f"ladder step {number} must be a non-empty mapping {{dimension: level}}")
        for name, level in step.items():
            if name.lower() not in index:
                raise ValueError(f"ladder step {number} names {name!r}, which is not a dimension")
            i = index[name.lower()]
            depth = depths[i]
            if depth is None:
                raise ValueError(f"ladder step {number} raises {name!r}, which has no hierarchy")
            if isinstance(level, bool) or not isinstance(level, int) or level < 0:
                raise ValueError(f"ladder step {number}: level of {name!r} must be a whole number >= 0")
            if level > depth:
                raise ValueError(
                    f"ladder step {number} asks for level {level} of {name!r}, whose hierarchy has depth {depth}"
                )
            current[i] = level
        if tuple(current) != steps[-1]:
            steps.append(tuple(current))
    return steps


@dataclass(frozen=True)
class Dominance:
    """A dominance rule: ``rule`` 'nk' (with ``n`` and ``k``) or 'p_percent' (with ``p``)."""

    rule: Literal["nk", "p_percent"]
    value: Callable[[Event], float]
    n: int = 1
    k: float = 0.0
    p: float = 0.0

    def dominated(self, group: Sequence[Event], privacy_unit: str) -> bool:
        totals: dict[Value, Fraction] = {}
        for event in group:
            unit = event[privacy_unit]
            if unit is not None:
                totals[unit] = totals.get(unit, Fraction(0)) + Fraction(self.value(event))
        ranked = sorted(totals.values(), reverse=True)
        total = sum(ranked, Fraction(0))
        top1 = ranked[0] if ranked else Fraction(0)
        top2 = sum(ranked[:2], Fraction(0))
        if self.rule == "nk":
            return (top1 if self.n == 1 else top2) > Fraction(self.k) / 100 * total
        return total - top2 < Fraction(self.p) / 100 * top1


@dataclass(frozen=True)
class ReleasedRow:
    """One row of the release. The remainder row has every label and level None and no step."""

    labels: tuple[str | None, ...]
    levels: tuple[int | None, ...]
    count: int
    measures: tuple[object, ...]
    step: int | None

    def as_tuple(self) -> tuple[object, ...]:
        """The row in output column order: label and level per dimension, count, measures."""
        out: list[object] = []
        for label, level in zip(self.labels, self.levels, strict=True):
            out.extend((label, level))
        out.append(self.count)
        out.extend(self.measures)
        return tuple(out)


@dataclass(frozen=True)
class Fate:
    """What happened to one input event.

    ``released``: released in ``Release.rows[row]`` at ladder step ``step``;
    ``suppressed``: left after the last step (counted in the remainder row, if any);
    ``dropped``: removed up front by ``null_policy='suppress'`` or for a NULL privacy unit.
    """

    outcome: Outcome
    row: int | None = None
    step: int | None = None


@dataclass(frozen=True)
class Release:
    columns: tuple[str, ...]
    steps: tuple[Levels, ...]
    rows: tuple[ReleasedRow, ...]
    """The rows the ladder released, in step order, sorted by key within a step."""
    remainder: ReleasedRow | None
    """The remainder row, when requested and it reached k."""
    fates: tuple[Fate, ...]
    """One fate per input event, in input order."""

    def output(self) -> list[tuple[object, ...]]:
        """Every released row (the remainder last), as tuples in output column order."""
        rows = [row.as_tuple() for row in self.rows]
        if self.remainder is not None:
            rows.append(self.remainder.as_tuple())
        return rows

    def events_of(self, row: int) -> list[int]:
        """Indexes of the input events released in ``rows[row]``."""
        return [i for i, fate in enumerate(self.fates) if fate.outcome == "released" and fate.row == row]

    @property
    def suppressed(self) -> list[int]:
        """Indexes of the input events the ladder suppressed (not the dropped ones)."""
        return [i for i, fate in enumerate(self.fates) if fate.outcome == "suppressed"]

    @property
    def dropped(self) -> list[int]:
        return [i for i, fate in enumerate(self.fates) if fate.outcome == "dropped"]


def group_size(events: Sequence[Event], privacy_unit: str | None, count_rows: bool) -> int:
    """Distinct non-NULL privacy units of `events`, or their number when counting rows."""
    if count_rows:
        return len(events)
    assert privacy_unit is not None
    return len({event[privacy_unit] for event in events if event[privacy_unit] is not None})


def release_counts(
    events: Sequence[Event],
    privacy_unit: str | None,
    dimensions: Sequence[str],
    hierarchies: Mapping[str, Hierarchy] | None = None,
    *,
    k: int,
    ladder: Sequence[Mapping[str, int]] | None = None,
    measures: Mapping[str, Measure] | None = None,
    count_column: str = "people",
    count_rows: bool = False,
    null_policy: NullPolicy = "root",
    remainder: bool = False,
    dominance: Dominance | None = None,
) -> Release:
    """What `kanon.release_counts` releases from `events` (mappings column -> text or None)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValueError(f"k must be a whole number of at least 2, got {k!r}")
    if not dimensions:
        raise ValueError("dimensions must be a non-empty list")
    if len({d.lower() for d in dimensions}) != len(dimensions):
        raise ValueError("a dimension is listed twice")
    if not count_rows and not privacy_unit:
        raise ValueError("privacy_unit is required unless count_rows=True")
    if null_policy not in ("root", "suppress"):
        raise ValueError(f"null_policy must be 'root' or 'suppress', got {null_policy!r}")
    hierarchies = hierarchies or {}
    by_lower = {name.lower(): h for name, h in hierarchies.items()}
    if set(by_lower) - {d.lower() for d in dimensions}:
        raise ValueError("a hierarchy is given for a column that is not a dimension")
    dim_hierarchies = [by_lower.get(d.lower()) for d in dimensions]
    measures = measures or {}

    steps = resolve_ladder(
        dimensions, [h.depth if h is not None else None for h in dim_hierarchies], ladder
    )

    columns: list[str] = []
    for d in dimensions:
        columns.extend((d, f"{d}_level"))
    columns.append(count_column)
    columns.extend(measures)

    fates: list[Fate] = [Fate("suppressed")] * len(events)
    remaining: list[int] = []
    for i, event in enumerate(events):
        null_dimension = null_policy == "suppress" and any(event[d] is None for d in dimensions)
        nobody = not count_rows and privacy_unit is not None and event[privacy_unit] is None
        if null_dimension or nobody:
            fates[i] = Fate("dropped")
        else:
            remaining.append(i)

    rows: list[ReleasedRow] = []
    for step, levels in enumerate(steps):
        groups: dict[Key, list[int]] = {}
        for i in remaining:
            key = tuple(
                generalize(events[i][d], h, level)
                for d, h, level in zip(dimensions, dim_hierarchies, levels, strict=True)
            )
            groups.setdefault(key, []).append(i)
        remaining = []
        for key in sorted(groups):
            members = groups[key]
            group = [events[i] for i in members]
            size = group_size(group, privacy_unit, count_rows)
            if size < k or (dominance is not None and dominance.dominated(group, str(privacy_unit))):
                remaining.extend(members)
                continue
            for i in members:
                fates[i] = Fate("released", row=len(rows), step=step)
            rows.append(
                ReleasedRow(
                    labels=tuple(label for label, _ in key),
                    levels=tuple(level for _, level in key),
                    count=size,
                    measures=tuple(measure(group) for measure in measures.values()),
                    step=step,
                )
            )
        remaining.sort()

    remainder_row: ReleasedRow | None = None
    if remainder:
        rest = [events[i] for i in remaining]
        size = group_size(rest, privacy_unit, count_rows)
        if size >= k and not (dominance is not None and dominance.dominated(rest, str(privacy_unit))):
            remainder_row = ReleasedRow(
                labels=(None,) * len(dimensions),
                levels=(None,) * len(dimensions),
                count=size,
                measures=tuple(measure(rest) for measure in measures.values()),
                step=None,
            )

    return Release(
        columns=tuple(columns),
        steps=tuple(steps),
        rows=tuple(rows),
        remainder=remainder_row,
        fates=tuple(fates),
    )
