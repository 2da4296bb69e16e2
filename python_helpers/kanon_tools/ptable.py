"""The perturbation table (ptable) of the Cell Key Method: built, checked and summarized.

A released count i is published as j = i + v, where v is the ptable's row for i whose key
interval [key_from, key_to) holds the cell's key (kanon_tools.noise; docs/reference/noise.md).
The seed has the columns i, j, v, p, key_from, key_to; each count's rows, in the order of j,
tile [0, 2^32), and p = (key_to - key_from) / 2^32. The last count, imax, stands for every
larger one.

How a table is built from D (--max-perturbation), V (--variance), js and pstay:

  allowed    for a count i, the perturbed values j in [i - D, i + D] with j = 0 or j > js
  solved     the maximum-entropy distribution over them with mean 0 and variance V (and
             p(j = i) = pstay where given): p(v) proportional to exp(a v + b v^2), (a, b)
             the minimum of the convex dual log sum exp(a v + b v^2) - b V (scipy.optimize).
             A count whose allowed values cannot have variance V gets the closest variance
             they can have (two values either side of 0: the nearest ones below, the farthest
             above), still with mean 0, and the summary names it: never silently
  rounded    each probability becomes a whole number of keys (largest remainders), then
             units move between two rows until sum(width * v) is 0, exactly, in integers
  imax       D + js + 1 by default: the first count whose allowed values are every i - D ..
             i + D, so that every larger count gets the same distribution, shifted, and a
             count n >= imax is published as at least imax - D = js + 1

The same parameters give the same bytes: nothing random, rows in the order of (i, j), p
written as the shortest text of the exact binary fraction width / 2^32.
"""

from __future__ import annotations

import io
import itertools
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
from scipy import optimize, special

from kanon_tools.noise import KEY_SPACE, PtableRow

COLUMNS = ("i", "j", "v", "p", "key_from", "key_to")
MAX_PERTURBATION = 1000  # |v| * sqrt(2^32) stays far inside a bigint: the checks' sums of width * v^2
MAX_JS = 1000
MAX_IMAX = 100_000
# how close a solved row's moments must come to their targets, in units of D and D^2
SOLVER_TOLERANCE = 1e-12


Vector = npt.NDArray[np.float64]


class PtableError(ValueError):
    """Parameters no ptable can honour, said in one line naming the argument."""


@dataclass(frozen=True)
class PtableParams:
    """create_cnt_ptable's parameters: D, V, js, pstay (None: free) and imax (None: D + js + 1)."""

    max_perturbation: int
    variance: float
    js: int = 0
    pstay: float | None = None
    imax: int | None = None

    @property
    def smallest_imax(self) -> int:
        """The first count whose allowed values are all of i - D .. i + D, none of them 0 or in 1..js."""
        return self.max_perturbation + self.js + 1

    @property
    def last_count(self) -> int:
        return self.smallest_imax if self.imax is None else self.imax

    def validate(self) -> None:
        d, js = self.max_perturbation, self.js
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= MAX_PERTURBATION:
            raise PtableError(f"--max-perturbation (D) must be a whole number from 1 to {MAX_PERTURBATION}, got {d!r}")
        if isinstance(js, bool) or not isinstance(js, int) or not 0 <= js <= MAX_JS:
            raise PtableError(f"--js must be a whole number from 0 to {MAX_JS}, got {js!r}")
        if d < js:
            raise PtableError(
                f"--max-perturbation (D = {d}) must be at least --js ({js}): a count of 1..js is published as 0 or "
                f"above js, so the count {js} must reach 0 and the count 1 must reach {js + 1}, both {js} away")
        if self.pstay is not None and not (math.isfinite(self.pstay) and 0 < self.pstay < 1):
            raise PtableError(f"--pstay must be a probability strictly between 0 and 1, got {self.pstay!r}")
        stay = self.pstay or 0.0
        # at imax every v in -D..D is allowed: the variance ranges over (0, D^2] without pstay; with
        # it, the other 1 - pstay of the probability lies at 1 <= |v| <= D
        low, high = (1 - stay, (1 - stay) * d * d) if self.pstay is not None else (0.0, float(d * d))
        if not (math.isfinite(self.variance) and low <= self.variance <= high and self.variance > 0):
            where = f" with --pstay {self.pstay}" if self.pstay is not None else ""
            wanted = (f"from 1 - pstay = {low:g} to (1 - pstay) * D^2 = {high:g}" if self.pstay is not None
                      else f"above 0 and at most D^2 = {high:g} (v = -D or +D, half and half, has the most)")
            raise PtableError(f"--variance must be {wanted}{where}, got {self.variance!r}")
        if self.imax is not None and not (self.smallest_imax <= self.imax <= MAX_IMAX):
            raise PtableError(
                f"--imax must be a whole number from D + js + 1 = {self.smallest_imax} to {MAX_IMAX}, "
                f"got {self.imax!r}: "
                "imax's row stands for every larger count, so it must allow every v in -D..D without "
                "reaching 0 or 1..js")


@dataclass(frozen=True)
class RowSolution:
    """One count's solved distribution: its allowed v (ascending) and their probabilities."""

    i: int
    values: tuple[int, ...]
    probabilities: tuple[float, ...]
    variance: float  # what the distribution has (the target V, or the closest the values allow)
    variance_met: bool
    pstay_kept: bool  # p(j = i) = pstay (True when no pstay was asked for)


@dataclass(frozen=True)
class Ptable:
    """A built perturbation table: its rows (i, j ascending) and each count's solution."""

    params: PtableParams
    rows: tuple[PtableRow, ...]
    solutions: tuple[RowSolution, ...]

    def csv(self) -> str:
        return to_csv(self.rows)


def allowed_perturbations(i: int, max_perturbation: int, js: int) -> tuple[int, ...]:
    """The v a count i may get: j = i + v in [i - D, i + D], j >= 0, and j = 0 or j > js."""
    if i == 0:
        return (0,)
    lowest = max(0, i - max_perturbation)
    return tuple(j - i for j in range(lowest, i + max_perturbation + 1) if j == 0 or j > js)


def _two_point(values: Sequence[int], low: int, high: int) -> tuple[list[float], float]:
    """Mean 0 on the two values low < 0 < high: p(low) = high / (high - low)."""
    probabilities = [0.0] * len(values)
    probabilities[values.index(low)] = high / (high - low)
    probabilities[values.index(high)] = -low / (high - low)
    return probabilities, float(-low * high)


def _max_entropy(values: Sequence[int], variance: float) -> tuple[list[float], float, bool]:
    """The maximum-entropy distribution on `values` with mean 0 and the variance closest to
    `variance` they allow: (probabilities, its variance, whether it is `variance`)."""
    below = [v for v in values if v < 0]
    above = [v for v in values if v > 0]
    if not below or not above:  # mean 0 only by staying (validation keeps 0 allowed then)
        if 0 not in values:
            raise PtableError(f"no distribution with mean 0 on the perturbations {list(values)}")
        return [1.0 if v == 0 else 0.0 for v in values], 0.0, False
    # the variances mean 0 allows: from the nearest values either side of 0 (0 itself when allowed)
    # to the farthest ones; both ends are two-point distributions
    lowest = 0 if 0 in values else -max(below) * min(above)
    highest = -min(below) * max(above)
    if variance <= lowest:
        return (*_two_point(values, max(below), min(above)), variance == lowest)
    if variance >= highest:
        return (*_two_point(values, min(below), max(above)), variance == highest)
    return _solve_dual(values, variance), variance, True


def _solve_dual(values: Sequence[int], variance: float) -> list[float]:
    """p(v) proportional to exp(a u + b u^2), u = v / m with m = max |v| (for the solver's scale):
    (a, b) is where the convex dual log sum exp(a u + b u^2) - b V / m^2 is flat, i.e. where the
    moments are (0, V / m^2)."""
    scale = float(max(abs(v) for v in values))
    u = np.asarray(values, dtype=float) / scale
    features = np.stack([u, u * u])
    target = np.array([0.0, variance / scale**2])

    def probabilities(theta: Vector) -> Vector:
        logits = theta @ features
        return np.exp(logits - special.logsumexp(logits))

    def gradient(theta: Vector) -> Vector:  # the dual's gradient: moments minus targets
        return features @ probabilities(theta) - target

    def hessian(theta: Vector) -> Vector:  # the moments' covariance, positive definite
        p = probabilities(theta)
        centred = features - (features @ p)[:, None]
        return (centred * p) @ centred.T

    def dual(theta: Vector) -> float:
        return float(special.logsumexp(theta @ features) - theta @ target)

    # Powell's hybrid method on the gradient converges to round-off from 0 for every row tried
    # (D up to 15, every js, variances within 1e-6 of either end); a descent of the dual first is
    # the fallback. Success is judged by the moments, not the solver's own flag, which asks for a
    # step smaller than round-off allows.
    theta = optimize.root(gradient, np.zeros(2), jac=hessian, method="hybr", options={"xtol": 1e-13}).x
    if np.max(np.abs(gradient(theta))) > SOLVER_TOLERANCE:
        start = optimize.minimize(dual, np.zeros(2), jac=gradient, method="BFGS").x
        theta = optimize.root(gradient, start, jac=hessian, method="hybr", options={"xtol": 1e-13}).x
    if np.max(np.abs(gradient(theta))) > SOLVER_TOLERANCE:
        raise RuntimeError(f"the maximum-entropy solve did not converge for v in {list(values)}, variance {variance}")
    return [float(p) for p in probabilities(theta)]


@cache
def solve_row(values: tuple[int, ...], variance: float,
              pstay: float | None) -> tuple[tuple[float, ...], float, bool, bool]:
    """A count's distribution over `values` (ascending, its allowed v): (probabilities, variance,
    variance met, pstay kept). With pstay, p(0) = pstay and the rest is the maximum-entropy
    distribution of the other values with variance V / (1 - pstay); where that cannot have mean 0
    (no allowed value on one side of 0) the row is solved without pstay, and says so."""
    others = [v for v in values if v != 0]
    if pstay is not None and 0 in values and min(others, default=0) < 0 < max(others, default=0):
        rest, rest_variance, met = _max_entropy(others, variance / (1 - pstay))
        scaled = iter(q * (1 - pstay) for q in rest)
        probabilities = tuple(pstay if v == 0 else next(scaled) for v in values)
        return probabilities, rest_variance * (1 - pstay), met, True
    probabilities_list, achieved, met = _max_entropy(values, variance)
    return tuple(probabilities_list), achieved, met, pstay is None


def key_widths(values: Sequence[int], probabilities: Sequence[float]) -> list[int]:
    """Whole numbers of keys, summing to 2^32, as near probabilities * 2^32 as the mean allows:
    largest remainders first, then units moved between two rows until sum(width * v) is 0 (or,
    where no whole widths have mean 0, as near 0 as they come)."""
    exact = [p * KEY_SPACE for p in probabilities]
    widths = [math.floor(x) for x in exact]
    short = KEY_SPACE - sum(widths)
    by_remainder = sorted(range(len(exact)), key=lambda n: (-(exact[n] - widths[n]), n))
    for n in by_remainder[:short]:
        widths[n] += 1
    return _balance(widths, values)


def _balance(widths: list[int], values: Sequence[int]) -> list[int]:
    """Move single units of width between rows, as few as reach sum(width * v) = 0 (a breadth-first
    search over the moment's values; a unit moved from v = a to v = b adds b - a). Where no whole
    widths give 0 (a row of two values whose gap does not divide 2^32 times either), it stops at
    the moment nearest 0. Only rows wider than any path give units, so no width goes below 0."""
    moment = sum(w * v for w, v in zip(widths, values, strict=True))
    if not moment:
        return list(widths)
    reach = abs(moment) + 2 * max(abs(v) for v in values)
    moves: dict[int, tuple[int, int]] = {}  # the change in the moment -> (from, to), the first pair giving it
    for source in range(len(values)):
        if widths[source] > 2 * reach + 1:  # more than the longest path can take
            for target in range(len(values)):
                if target != source:
                    moves.setdefault(values[target] - values[source], (source, target))
    came_from: dict[int, tuple[int, int]] = {moment: (moment, 0)}
    frontier = [moment]
    while frontier and 0 not in came_from:
        following = []
        for state in frontier:
            for change in sorted(moves):
                new = state + change
                if abs(new) <= reach and new not in came_from:
                    came_from[new] = (state, change)
                    following.append(new)
        frontier = following
    best = min(came_from, key=lambda state: (abs(state), state))
    balanced = list(widths)
    while best != moment:
        best, change = came_from[best]
        source, target = moves[change]
        balanced[source] -= 1
        balanced[target] += 1
    return balanced


def build_ptable(params: PtableParams) -> Ptable:
    """The ptable of `params` (validated first: PtableError names what is wrong)."""
    params.validate()
    rows: list[PtableRow] = []
    solutions: list[RowSolution] = []
    for i in range(params.last_count + 1):
        values = allowed_perturbations(i, params.max_perturbation, params.js)
        if i == 0:
            probabilities: tuple[float, ...] = (1.0,)
            variance, met, kept = 0.0, True, True
        else:
            probabilities, variance, met, kept = solve_row(values, params.variance, params.pstay)
        solutions.append(RowSolution(i, values, probabilities, variance, met, kept))
        start = 0
        for v, width in zip(values, key_widths(values, probabilities), strict=True):
            if width:  # a value with no keys is never published: no row, no empty interval
                rows.append(PtableRow(i, i + v, v, start, start + width))
                start += width
    return Ptable(params, tuple(rows), tuple(solutions))


def to_csv(rows: Iterable[PtableRow]) -> str:
    """The seed's text: a header, then i, j, v, p, key_from, key_to; p is the exact width / 2^32."""
    out = io.StringIO()
    out.write(",".join(COLUMNS) + "\n")
    for r in rows:
        out.write(f"{r.i},{r.j},{r.v},{(r.key_to - r.key_from) / KEY_SPACE!r},{r.key_from},{r.key_to}\n")
    return out.getvalue()


def read_csv(text: str) -> list[PtableRow]:
    """Rows of a ptable's text (p is not read: the intervals are what a release applies)."""
    lines = text.strip().splitlines()
    header = [c.strip() for c in lines[0].split(",")]
    return [PtableRow(**{c: int(value) for c, value in zip(header, line.split(","), strict=True) if c != "p"})
            for line in lines[1:]]


@dataclass(frozen=True)
class CountMoments:
    """What a count's intervals give: keys, sum(width * v) and sum(width * v^2), in integers."""

    i: int
    keys: int
    first: int
    second: int

    @property
    def mean(self) -> float:
        return self.first / KEY_SPACE

    @property
    def variance(self) -> float:
        return self.second / KEY_SPACE - self.mean**2


@dataclass(frozen=True)
class Summary:
    rows: int
    imax: int
    moments: Mapping[int, CountMoments] = field(default_factory=dict)


def summarize(rows: Iterable[PtableRow]) -> Summary:
    """Each count's moments, from the integer widths of its intervals (what a release applies)."""
    moments: dict[int, CountMoments] = {}
    n = 0
    for r in rows:
        n += 1
        width = r.key_to - r.key_from
        seen = moments.get(r.i, CountMoments(r.i, 0, 0, 0))
        moments[r.i] = CountMoments(r.i, seen.keys + width, seen.first + width * r.v, seen.second + width * r.v**2)
    return Summary(n, max(moments, default=-1), dict(sorted(moments.items())))


def check_ptable(rows: Sequence[PtableRow], *, max_perturbation: int, js: int) -> list[str]:
    """What is wrong with a table, as the generic tests ptable_* would say it (empty: nothing):
    counts not 0..imax, tiling, zeros, |v| > D or v other than j - i, a value in 1..js (or imax
    published as 0 or 1..js, which a larger count would inherit), a mean other than 0."""
    problems: list[str] = []
    by_count: dict[int, list[PtableRow]] = {}
    for r in rows:
        by_count.setdefault(r.i, []).append(r)
    if sorted(by_count) != list(range(len(by_count))):
        problems.append(f"the counts are not 0..imax: {sorted(by_count)}")
    imax = max(by_count, default=0)
    for i, found in sorted(by_count.items()):
        found = sorted(found, key=lambda r: (r.key_from, r.key_to))
        joints = itertools.pairwise(found)
        if found[0].key_from != 0 or found[-1].key_to != KEY_SPACE or any(r.key_to != s.key_from for r, s in joints):
            problems.append(f"i={i}: the intervals do not tile [0, 2^32)")
        if any(r.key_to <= r.key_from for r in found):
            problems.append(f"i={i}: an empty interval")
        if any(abs(r.v) > max_perturbation or r.v != r.j - r.i for r in found):
            problems.append(f"i={i}: |v| above {max_perturbation} or v other than j - i")
        if any(1 <= r.j <= js or (i == imax and js >= 1 and r.j == 0) for r in found):
            problems.append(f"i={i}: a perturbed value in 1..{js}")
        if i == 0 and [(r.j, r.v) for r in found] != [(0, 0)]:
            problems.append("i=0: zero does not stay zero")
    for i, m in summarize(rows).moments.items():
        if m.first:
            problems.append(f"i={i}: sum(width * v) is {m.first}, not 0")
    return problems


def describe(table: Ptable, output: Path | str) -> list[str]:
    """The command's summary: what was written, then every count that differs from what was asked."""
    params = table.params
    summary = summarize(table.rows)
    stay = f", pstay {params.pstay:g}" if params.pstay is not None else ""
    lines = [f"ptable: wrote {output}: {summary.rows} rows, counts 0..{summary.imax} ({summary.imax} stands for "
             f"every larger count); D {params.max_perturbation}, V {params.variance:g}, js {params.js}{stay}"]
    unmet = [s for s in table.solutions if s.i > 0 and not s.variance_met]
    if unmet:
        lines.append(f"ptable: {_counts(len(unmet))} cannot have variance {params.variance:g}; each has mean 0 and "
                     "the closest variance its allowed values give:")
        lines += [f"  i={s.i}: variance {summary.moments[s.i].variance:.6g} (v in {list(s.values)})" for s in unmet]
    if params.pstay is not None:
        moved = [s for s in table.solutions if s.i > 0 and not s.pstay_kept]
        for blocked, reason in ((True, "j = i is in 1..js"), (False, "only v = 0 gives them mean 0")):
            found = [str(s.i) for s in moved if (0 not in s.values) == blocked]
            if found:
                lines.append(f"ptable: p(j = i) is not pstay at {_counts(len(found))}, {', '.join(found)}: {reason}")
    biased = [m for m in summary.moments.values() if m.first]
    if biased:
        lines.append("ptable: no whole widths give these counts mean 0 exactly; the nearest:")
        lines += [f"  i={m.i}: mean perturbation {m.mean:.3g} (sum(width * v) = {m.first})" for m in biased]
    else:
        lines.append("ptable: every count's mean perturbation is 0 exactly (sum(width * v) = 0 in integers)")
    return lines


def _counts(n: int) -> str:
    return f"{n} count" + ("" if n == 1 else "s")


def command(params: PtableParams, output: Path) -> int:
    """`python -m kanon_tools ptable` (kanon_tools.cli.ptable parses it): write the seed and say
    what it holds, or say in one line why not (exit 2)."""
    try:
        table = build_ptable(params)
    except PtableError as exc:
        print(f"ptable: {exc}", file=sys.stderr)
        return 2
    output.write_text(table.csv(), encoding="utf-8", newline="\n")
    print("\n".join(describe(table, output)))
    return 0
