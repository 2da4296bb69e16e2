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
linear programs (a few per group, solved by HiGHS's interior point method through highspy, then
two per cell those did not settle), which is what a table of 100,000 cells needs. The audit is
independent of the SQL that chose the pattern: it sees only what is published.

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
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import highspy
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linprog
from scipy.sparse import csr_matrix, vstack

Key = tuple[str, ...]
Bounds = tuple[float, float | None]  # a hidden cell's lowest and highest value (None: unbounded)
Row = tuple[NDArray[np.intp], NDArray[np.float64], float]  # a sparse row over hidden cells: columns, values, rhs

# the width below which an interval holds only one whole number, with room for LP round-off
_EPS = 1e-7
# how far a screening solution may miss a constraint or bound (round-off), well inside _EPS
_FEASIBLE = 1e-8


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


def _rows(relation: Relation, cells: Mapping[Key, Cell], index: Mapping[Key, int]) -> tuple[list[Row], list[Row]]:
    """The relation as linear (in)equalities over the hidden cells of `index`: (equalities,
    upper-bounded rows), each sparse (columns, coefficients, right-hand side); published values move right."""
    def row(terms: Iterable[tuple[Key, float]]) -> Row:
        coefficients: dict[int, float] = {}
        rhs = 0.0
        for key, sign in terms:
            value = cells[key].value
            if value is None:
                coefficients[index[key]] = coefficients.get(index[key], 0.0) + sign
            else:
                rhs -= sign * value
        columns = np.fromiter(coefficients, dtype=np.intp, count=len(coefficients))
        return columns, np.fromiter(coefficients.values(), dtype=np.float64, count=len(coefficients)), rhs

    total, parts = relation.total, relation.parts
    if relation.additive:  # sum(parts) - total == 0
        return [row([(total, -1.0), *((part, 1.0) for part in parts)])], []
    upper = [row([(part, 1.0), (total, -1.0)]) for part in parts]  # part - total <= 0
    upper.append(row([(total, 1.0), *((part, -1.0) for part in parts)]))  # total - sum(parts) <= 0
    return [], upper


def _highs() -> Any:
    return highspy.Highs()  # type: ignore[no-untyped-call]  # highspy's constructor is not annotated


@functools.cache
def _swallow_highs_banner() -> None:
    """highspy prints a banner on stdout when the first solver of a process is made, before any
    option can turn its output off; the attack command's stdout is its report, so the first one
    is made with stdout pointed at /dev/null."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            _highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


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

    def solve(self, objective: NDArray[np.float64]) -> Any:
        """Minimises `objective` exactly (HiGHS's simplex, whose statuses for an unbounded or
        infeasible program audit relies on)."""
        # Without HiGHS's presolve: on a table's program (every variable in two or three sparse
        # rows) it costs far more than the solve (10 s against 0.7 s at 20,000 hidden cells).
        return linprog(objective, A_ub=self.a_ub, b_ub=self.b_ub, A_eq=self.a_eq, b_eq=self.b_eq,
                       bounds=self.bounds, method="highs", options={"presolve": False})

    def screen(self, objective: NDArray[np.float64],
               bounds: Sequence[tuple[float, float]]) -> NDArray[np.float64] | None:
        """A solution under `bounds` (the screening's, all finite) that minimises `objective`, by
        HiGHS's interior point method without crossover, or None. Such a solution is not a vertex
        and may miss the constraints by round-off, so it is returned only when it meets every one
        within _FEASIBLE, far inside the _EPS by which audit() and Interval.exact allow for LP
        round-off: a cell that LPs would find exact is never seen at two whole numbers."""
        # highspy rather than scipy's linprog, which cannot turn crossover off. On the 101,439-cell
        # three-way benchmark (33,574 hidden cells in one group) one program took 15 s with
        # crossover and without presolve (scipy's), 7 s with presolve, 2.6-4 s without crossover.
        rows = [a for a in (self.a_eq, self.a_ub) if a is not None]
        matrix = vstack(rows).tocsc()
        n_eq = 0 if self.a_eq is None else self.a_eq.shape[0]
        b_eq = np.zeros(0) if self.b_eq is None else self.b_eq
        b_ub = np.zeros(0) if self.b_ub is None else self.b_ub
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
        lp.col_cost_ = objective
        lp.col_lower_ = np.array([low for low, _ in bounds])
        lp.col_upper_ = np.array([high for _, high in bounds])
        lp.row_lower_ = np.concatenate([b_eq, np.full(len(b_ub), -highspy.kHighsInf)])
        lp.row_upper_ = np.concatenate([b_eq, b_ub])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
        solver = _highs()
        # Presolve on, but without its search for dependent equations (rule 10), which took 1.5 s of
        # a 0.1 s program in the 2-D benchmark; the rest of it halves the three-way table's solve.
        options = (("output_flag", False), ("threads", 1), ("solver", "ipm"), ("run_crossover", "off"),
                   ("presolve", "on"), ("presolve_rule_off", 1 << 10))
        for option, value in options:
            solver.setOptionValue(option, value)
        solver.passModel(lp)
        solver.run()
        if solver.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None
        x = np.asarray(solver.getSolution().col_value, dtype=np.float64)
        product = matrix @ x
        misses = [np.abs(product[:n_eq] - b_eq), product[n_eq:] - b_ub, lp.col_lower_ - x, x - lp.col_upper_]
        return x if max(float(miss.max(initial=0.0)) for miss in misses) <= _FEASIBLE else None


def _sparse(rows: Sequence[Row], size: int) -> tuple[Any, NDArray[np.float64] | None]:
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
            equal, upper = _rows(relation, cells, {})
            if any(abs(rhs) > _EPS for _, _, rhs in equal) or any(rhs < -_EPS for _, _, rhs in upper):
                raise InconsistentTable(f"published cells break the relation of {relation.total}")
    touching: dict[Key, list[Relation]] = {}
    for relation in relations:
        for key in {relation.total, *relation.parts}:
            touching.setdefault(key, []).append(relation)
    programs = []
    for group in _groups(hidden, relations):
        index = {key: i for i, key in enumerate(group)}
        seen: set[int] = set()
        equalities: list[Row] = []
        inequalities: list[Row] = []
        for key in group:
            for relation in touching.get(key, []):
                if id(relation) in seen:
                    continue
                seen.add(id(relation))
                e, u = _rows(relation, cells, index)
                equalities += e
                inequalities += u
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


# At most this many screening rounds in audit(): two objectives each over the cells not yet settled.
SCREENING_ROUNDS = 24


def audit(cells: Mapping[Key, Cell], relations: Sequence[Relation], knowledge: Knowledge,
          min_width: float = 0.0, limits: Mapping[Key, Bounds] | None = None) -> list[Finding]:
    """The findings of `findings(intervals(...), min_width)`, without two LPs for every hidden cell.

    Any feasible solution of a group's program bounds each cell's interval from inside: its
    lowest value is at most, and its highest at least, what the cell takes there. A cell whose
    values over the solutions seen already span two whole numbers (and `min_width`) is settled:
    no exact disclosure, no narrow interval, whatever the LP would add. So each group is first
    solved in rounds of two objectives over the unsettled cells (every cell down and up, then
    each pushed away from the bound it was only seen near), under bounds capped high enough to
    keep them finite (a capped solution is still a solution), until a round settles nothing
    more; only the cells left get their two exact LPs, whose solutions settle others in turn.
    The findings are exactly those of the full audit (settled cells have none; the rest are
    solved exactly); only the number of LPs differs: two per round (at most SCREENING_ROUNDS)
    plus two per cell left, instead of two per hidden cell. Signs and weights are drawn from a
    fixed seed, so a run is repeatable.
    `limits`: each hidden cell's bounds where not its mark's under `knowledge` (as in intervals)."""
    out: list[Finding] = []
    published = sum(cell.value or 0 for cell in cells.values())
    floor = max([knowledge.k, *(low for low, _ in (limits or {}).values())])  # keeps the cap above every bound
    cap = 4.0 * (published + floor * (len(cells) + 1) + 1)
    rng = np.random.default_rng(12)
    _swallow_highs_banner()  # here, before the solver threads
    for program in _programs(cells, relations, knowledge, limits):
        size = len(program.keys)
        seen = _Seen(np.full(size, np.inf), np.full(size, -np.inf), min_width)
        capped = [(lo, cap if hi is None else hi) for lo, hi in program.bounds]
        lows = np.array([lo for lo, _ in capped])
        highs = np.array([hi for _, hi in capped])
        left = seen.unsettled()
        for round_ in range(SCREENING_ROUNDS if size > 2 else 0):
            # each cell's weight drawn at random, so the optimum is one vertex, which the interior
            # point method approaches: with equal weights it stops inside a face of optima, where a
            # cell between others it trades with is seen at neither end
            weights = rng.uniform(0.5, 1.5, (2, size))
            if round_ == 0:  # every cell down, and up
                objectives = [np.where(left, weights[0], 0.0), np.where(left, -weights[1], 0.0)]
            else:
                # two programs: each cell left pushed away from a bound it was only seen near
                # (a program minimises, so -1 pushes up), the others either way at random
                objectives = []
                for weight in weights:
                    signs = rng.choice([-1.0, 1.0], size)
                    signs[seen.high < lows + 1.0] = -1.0
                    signs[seen.low > highs - 1.0] = 1.0
                    objectives.append(np.where(left, signs * weight, 0.0))
            solutions = [x for x in _solve_all(functools.partial(program.screen, bounds=capped), objectives)
                         if x is not None]
            for x in solutions:
                seen.add(x)
            was, left = left, seen.unsettled()
            if not left.any() or not solutions or (left == was).all():
                break  # settled, or stalled: the cells left get their exact LPs below
        settled = ~left
        for i, key in enumerate(program.keys):
            if settled[i]:
                continue
            low, high, solutions = _ends(program, i)
            for x in solutions:
                seen.add(x)
            settled = ~seen.unsettled()
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
