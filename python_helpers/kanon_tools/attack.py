"""An attacker's linear-programming audit of a table published with totals (issue 12: the core).

What a reader of a published table knows:
  - every published cell's value;
  - of every hidden cell, what its mark says: a primary mark (`<k`) that 0 < x < k (0 <= x < k
    when zeros are hidden too), a secondary mark (`.`) that x >= k, since complementary
    suppression only ever hides cells that could have been published;
  - the relations between cells and their totals: a total is the sum of its parts (additive), or,
    where one person can fall in several parts, max(parts) <= total <= sum(parts) (bounded);
  - that counts are not negative.

`intervals` finds, for every hidden cell, the lowest and highest value consistent with all of it
(scipy's HiGHS, two linear programs per hidden cell, on each connected group of hidden cells
apart). `findings` reports exact disclosures (one whole number left in the interval) and
intervals narrower than a protection width. `audit` reports the same findings with far fewer
linear programs (a few per group, then two per cell those did not settle), which is what a table
of 100,000 cells needs. The audit is independent of the SQL that chose the
pattern: it sees only what is published.

Each hidden cell's bounds come from its mark under one `Knowledge`, unless `limits` gives them:
kanon_tools.attack_report links several reports that share margins into one system, where a
quantity hidden in several is held to every report's marks (their k may differ).

What it does not model: releases it is not given (other months, tables not linked in), and
outside knowledge.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linprog
from scipy.sparse import csr_matrix

Key = tuple[str, ...]
Bounds = tuple[float, float | None]  # a hidden cell's lowest and highest value (None: unbounded)
Row = tuple[NDArray[np.float64], float]  # a linear row over hidden cells, and its right-hand side

# the width below which an interval holds only one whole number, with room for LP round-off
_EPS = 1e-7


class Status(StrEnum):
    PUBLISHED = "published"
    PRIMARY = "primary"  # hidden: 0 < x < k
    SECONDARY = "secondary"  # hidden so that no primary can be worked out: x >= k


@dataclass(frozen=True)
class Cell:
    value: int | None  # None exactly when hidden
    status: Status


@dataclass(frozen=True)
class Relation:
    """A total and its parts: total == sum(parts) when additive, else max <= total <= sum."""

    total: Key
    parts: tuple[Key, ...]
    additive: bool = True


@dataclass(frozen=True)
class Knowledge:
    """What the marks tell: k, and whether zeros are shown (then a primary cell is at least 1)."""

    k: int
    zeros_shown: bool = True

    def bounds(self, status: Status) -> tuple[float, float | None]:
        if status is Status.PRIMARY:
            return (1.0 if self.zeros_shown else 0.0), float(self.k - 1)
        if status is Status.SECONDARY:
            return float(self.k), None
        raise ValueError(f"a {status.value} cell is not hidden")


@dataclass(frozen=True)
class Interval:
    """The values a hidden cell can take given everything published (high None: unbounded)."""

    key: Key
    status: Status
    low: float
    high: float | None

    @property
    def width(self) -> float:
        return math.inf if self.high is None else self.high - self.low

    @property
    def exact(self) -> bool:
        """Only one whole number fits: the cell is disclosed."""
        return self.high is not None and math.floor(self.high + _EPS) <= math.ceil(self.low - _EPS)


@dataclass(frozen=True)
class Finding:
    key: Key
    status: Status
    low: float
    high: float | None
    reason: str  # 'exact' or 'narrow'


class InconsistentTable(ValueError):
    """What is published contradicts itself (no values fit): a defect of the release, not a pass."""


def _check(cells: Mapping[Key, Cell], relations: Sequence[Relation]) -> None:
    for key, cell in cells.items():
        hidden = cell.status is not Status.PUBLISHED
        if hidden != (cell.value is None):
            raise ValueError(f"cell {key}: a {cell.status.value} cell must "
                             f"{'not ' if hidden else ''}have a value")
        if cell.value is not None and cell.value < 0:
            raise ValueError(f"cell {key}: a count cannot be negative ({cell.value})")
    for relation in relations:
        if not relation.parts:
            raise ValueError(f"relation of {relation.total}: no parts")
        for key in (relation.total, *relation.parts):
            if key not in cells:
                raise ValueError(f"relation of {relation.total}: no cell {key}")


def _groups(hidden: Sequence[Key], relations: Sequence[Relation]) -> list[list[Key]]:
    """Hidden cells linked through relations, in groups that can be solved apart (union-find)."""
    parent = {key: key for key in hidden}

    def root(key: Key) -> Key:
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    for relation in relations:
        linked = [key for key in (relation.total, *relation.parts) if key in parent]
        for key in linked[1:]:
            parent[root(key)] = root(linked[0])
    groups: dict[Key, list[Key]] = {}
    for key in hidden:
        groups.setdefault(root(key), []).append(key)
    return list(groups.values())


def _rows(relation: Relation, cells: Mapping[Key, Cell], index: Mapping[Key, int],
          size: int) -> tuple[list[Row], list[Row]]:
    """The relation as linear (in)equalities over the hidden cells of `index`: (equalities,
    upper-bounded rows), each (coefficients, right-hand side); published values move right."""
    def term(key: Key, sign: float, row: NDArray[np.float64]) -> float:
        cell = cells[key]
        if cell.value is None:
            row[index[key]] += sign
            return 0.0
        return -sign * cell.value

    equal: list[Row] = []
    upper: list[Row] = []
    if relation.additive:  # sum(parts) - total == 0
        row = np.zeros(size)
        rhs = term(relation.total, -1.0, row) + sum(term(part, 1.0, row) for part in relation.parts)
        equal.append((row, rhs))
    else:
        for part in relation.parts:  # part - total <= 0
            row = np.zeros(size)
            rhs = term(part, 1.0, row) + term(relation.total, -1.0, row)
            upper.append((row, rhs))
        row = np.zeros(size)  # total - sum(parts) <= 0
        rhs = term(relation.total, 1.0, row) + sum(term(part, -1.0, row) for part in relation.parts)
        upper.append((row, rhs))
    return equal, upper


@dataclass
class _Program:
    """One linked group of hidden cells as a linear program: (in)equalities in sparse form, and
    each cell's bounds from its mark."""

    keys: list[Key]
    a_ub: Any
    b_ub: NDArray[np.float64] | None
    a_eq: Any
    b_eq: NDArray[np.float64] | None
    bounds: list[tuple[float, float | None]]

    def solve(self, objective: NDArray[np.float64], bounds: Sequence[tuple[float, float | None]] | None = None) -> Any:
        """Minimises `objective`; with `bounds` (the screening's, all finite) by HiGHS's interior
        point method, else by its simplex, whose statuses for an unbounded program audit relies on."""
        # Without HiGHS's presolve: on a table's program (every variable in two or three sparse
        # rows) it costs far more than the solve (10 s against 0.7 s at 20,000 hidden cells).
        # Interior point for the screening: on a 3-D table's groups the simplex took 1.3-1.7 s a
        # program against 0.1-0.3 s, and its solutions settled more cells of a 2-D one (34 left
        # for exact LPs instead of 66 at 20,000 hidden cells).
        return linprog(objective, A_ub=self.a_ub, b_ub=self.b_ub, A_eq=self.a_eq, b_eq=self.b_eq,
                       bounds=self.bounds if bounds is None else bounds,
                       method="highs" if bounds is None else "highs-ipm", options={"presolve": False})


_Sparse = tuple[NDArray[np.intp], NDArray[np.float64], float]  # a row's nonzero columns, their values, rhs


def _sparse_row(row: Row) -> _Sparse:
    nonzero = np.flatnonzero(row[0])
    return nonzero, row[0][nonzero], row[1]


def _sparse(rows: Sequence[_Sparse], size: int) -> tuple[Any, NDArray[np.float64] | None]:
    if not rows:
        return None, None
    indptr = np.cumsum([0] + [len(columns) for columns, _, _ in rows])
    indices = np.concatenate([columns for columns, _, _ in rows])
    data = np.concatenate([values for _, values, _ in rows])
    return csr_matrix((data, indices, indptr), shape=(len(rows), size)), np.array([rhs for _, _, rhs in rows])


def _programs(cells: Mapping[Key, Cell], relations: Sequence[Relation], knowledge: Knowledge,
              limits: Mapping[Key, Bounds] | None = None) -> list[_Program]:
    """Checks what is published, then one program per linked group of hidden cells, each cell
    bounded by `limits` where given, else by its mark."""
    _check(cells, relations)
    hidden = [key for key, cell in cells.items() if cell.value is None]
    for relation in relations:  # fully published relations must hold as they are
        if all(cells[key].value is not None for key in (relation.total, *relation.parts)):
            equal, upper = _rows(relation, cells, {}, 0)
            if any(abs(rhs) > _EPS for _, rhs in equal) or any(rhs < -_EPS for _, rhs in upper):
                raise InconsistentTable(f"published cells break the relation of {relation.total}")
    touching: dict[Key, list[Relation]] = {}
    for relation in relations:
        for key in {relation.total, *relation.parts}:
            touching.setdefault(key, []).append(relation)
    programs = []
    for group in _groups(hidden, relations):
        index = {key: i for i, key in enumerate(group)}
        seen: set[int] = set()
        equalities: list[_Sparse] = []
        inequalities: list[_Sparse] = []
        for key in group:
            for relation in touching.get(key, []):
                if id(relation) in seen:
                    continue
                seen.add(id(relation))
                e, u = _rows(relation, cells, index, len(group))
                equalities += [_sparse_row(row) for row in e]
                inequalities += [_sparse_row(row) for row in u]
        a_eq, b_eq = _sparse(equalities, len(group))
        a_ub, b_ub = _sparse(inequalities, len(group))
        bounds = [limits[key] if limits is not None and key in limits else knowledge.bounds(cells[key].status)
                  for key in group]
        programs.append(_Program(group, a_ub, b_ub, a_eq, b_eq, bounds))
    return programs


def _ends(program: _Program, i: int) -> tuple[float, float | None, list[NDArray[np.float64]]]:
    """The lowest and highest value of the program's cell i (None: unbounded), and the solutions seen."""
    ends: list[float | None] = []
    seen = []
    key = program.keys[i]
    objectives = []
    for sign in (1.0, -1.0):
        objective = np.zeros(len(program.keys))
        objective[i] = sign
        objectives.append(objective)
    for sign, result in zip((1.0, -1.0), _solve_all(program.solve, objectives), strict=True):
        if result.status == 2:
            raise InconsistentTable(f"no values of the hidden cells fit what is published (at {key})")
        if result.status == 3:  # unbounded: only the maximum can be
            ends.append(None)
        elif result.status != 0:
            raise RuntimeError(f"the LP solver failed at {key}: {result.message}")
        else:
            ends.append(sign * float(result.fun))
            seen.append(np.asarray(result.x, dtype=np.float64))
    low, high = ends
    assert low is not None  # counts are bounded below by their marks
    return low, high, seen


def _solve_all(solve: Callable[[NDArray[np.float64]], Any], objectives: Sequence[NDArray[np.float64]]) -> list[Any]:
    """`solve` for each objective, two or more at once: HiGHS releases the GIL, so a pair of
    programs takes the time of one on two cores (the audit is nearly all solving)."""
    workers = min(len(objectives), os.cpu_count() or 1)
    if workers < 2:
        return [solve(objective) for objective in objectives]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(solve, objectives))


def intervals(cells: Mapping[Key, Cell], relations: Sequence[Relation], knowledge: Knowledge,
              limits: Mapping[Key, Bounds] | None = None) -> dict[Key, Interval]:
    """Every hidden cell's feasible interval given the published table (see the module doc)."""
    out: dict[Key, Interval] = {}
    for program in _programs(cells, relations, knowledge, limits):
        for i, key in enumerate(program.keys):
            low, high, _ = _ends(program, i)
            out[key] = Interval(key, cells[key].status, low, high)
    return out


@dataclass
class _Seen:
    """Each cell's lowest and highest value over the feasible solutions seen so far."""

    low: NDArray[np.float64]
    high: NDArray[np.float64]
    min_width: float

    def add(self, x: NDArray[np.float64]) -> None:
        np.minimum(self.low, x, out=self.low)
        np.maximum(self.high, x, out=self.high)

    def unsettled(self) -> NDArray[np.bool_]:
        """Cells whose values seen do not yet span two whole numbers and min_width."""
        spans = np.floor(self.high + _EPS) > np.ceil(self.low - _EPS)
        return ~(spans & (self.high - self.low >= self.min_width))


# Screening rounds of audit(): pairs of opposite objectives over the cells not yet settled.
SCREENING_ROUNDS = 12


def audit(cells: Mapping[Key, Cell], relations: Sequence[Relation], knowledge: Knowledge,
          min_width: float = 0.0, limits: Mapping[Key, Bounds] | None = None) -> list[Finding]:
    """The findings of `findings(intervals(...), min_width)`, without two LPs for every hidden cell.

    Any feasible solution of a group's program bounds each cell's interval from inside: its
    lowest value is at most, and its highest at least, what the cell takes there. A cell whose
    values over the solutions seen already span two whole numbers (and `min_width`) is settled:
    no exact disclosure, no narrow interval, whatever the LP would add. So each group is first
    solved for a few objectives of +1/-1 per unsettled cell (and their opposites), under bounds
    capped high enough to keep them finite (a capped solution is still a solution), and only the
    cells left unsettled get their two LPs, whose solutions settle others in turn. The findings
    are exactly those of the full audit (settled cells have none; the rest are solved exactly);
    only the number of LPs differs: about 2 x SCREENING_ROUNDS per group plus two per cell left,
    instead of two per hidden cell. The signs are drawn from a fixed seed, so a run is repeatable.
    `limits`: each hidden cell's bounds where not its mark's under `knowledge` (as in intervals)."""
    out: list[Finding] = []
    published = sum(cell.value or 0 for cell in cells.values())
    floor = max([knowledge.k, *(low for low, _ in (limits or {}).values())])  # keeps the cap above every bound
    cap = 4.0 * (published + floor * (len(cells) + 1) + 1)
    rng = np.random.default_rng(12)
    for program in _programs(cells, relations, knowledge, limits):
        size = len(program.keys)
        seen = _Seen(np.full(size, np.inf), np.full(size, -np.inf), min_width)
        capped = [(lo, cap if hi is None else hi) for lo, hi in program.bounds]
        lows = np.array([lo for lo, _ in capped])
        highs = np.array([hi for _, hi in capped])
        for round_ in range(SCREENING_ROUNDS if size > 2 else 0):
            left = seen.unsettled()
            if not left.any():
                break
            if round_ == 0:  # the sum of every cell down, and up
                objectives = [np.where(left, sign, 0.0) for sign in (1.0, -1.0)]
            else:
                # two programs: each cell left pushed away from a bound it was only seen near
                # (a program minimises, so -1 pushes up), the others either way at random
                objectives = []
                for _ in range(2):
                    signs = rng.choice([-1.0, 1.0], size)
                    signs[seen.high < lows + 1.0] = -1.0
                    signs[seen.low > highs - 1.0] = 1.0
                    objectives.append(np.where(left, signs, 0.0))
            results = _solve_all(functools.partial(program.solve, bounds=capped), objectives)
            if any(result.status != 0 for result in results):
                break  # infeasible or failed under the caps: leave it to the exact LPs below
            for result in results:
                seen.add(np.asarray(result.x, dtype=np.float64))
        for i, key in enumerate(program.keys):
            if not seen.unsettled()[i]:
                continue
            low, high, solutions = _ends(program, i)
            for x in solutions:
                seen.add(x)
            out += findings([Interval(key, cells[key].status, low, high)], min_width)
    return sorted(out, key=lambda f: f.key)


def findings(found: Iterable[Interval], min_width: float = 0.0) -> list[Finding]:
    """Exact disclosures, and intervals narrower than `min_width` (a protection width)."""
    out = []
    for interval in found:
        reason = "exact" if interval.exact else ("narrow" if interval.width < min_width else None)
        if reason is not None:
            out.append(Finding(interval.key, interval.status, interval.low, interval.high, reason))
    return sorted(out, key=lambda f: f.key)


def grid(rows: Sequence[str], columns: Sequence[str], marks: Mapping[tuple[str, str], str | int],
         total: str = "Total", additive: bool = True) -> tuple[dict[Key, Cell], list[Relation]]:
    """A two-way table with row, column and grand totals, from its printed form: each mark an int
    (published), '<k' (primary) or '.' / '·' (secondary); keys (row, column), totals under `total`."""
    cells: dict[Key, Cell] = {}
    for r in (*rows, total):
        for c in (*columns, total):
            mark = marks[(r, c)]
            if isinstance(mark, int):
                cells[(r, c)] = Cell(mark, Status.PUBLISHED)
            elif str(mark).startswith("<"):
                cells[(r, c)] = Cell(None, Status.PRIMARY)
            elif mark in (".", "·"):
                cells[(r, c)] = Cell(None, Status.SECONDARY)
            else:
                raise ValueError(f"cell ({r}, {c}): unknown mark {mark!r}")
    relations = [Relation((r, total), tuple((r, c) for c in columns), additive) for r in (*rows, total)]
    relations += [Relation((total, c), tuple((r, c) for r in rows), additive) for c in (*columns, total)]
    return cells, relations
