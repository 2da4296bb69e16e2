"""Plain Python for noise mode 'dp' (macros/noise/dp/, macros/counts/dp/): what a release must publish.

The lookup table is computed as kanon._noise_dp_table computes it in Jinja (the same float
operations in the same order, so the same whole numbers: the tests compare the two by hash);
everything else is written from the definitions: the draw is HMAC-SHA-256 of the cell under the
key, the contribution bound keeps each person's first cells by md5 of cell and person, the noisy
count is the true count plus the table's z for the draw.
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

E = 2.718281828459045  # the e the macros raise to a power (Jinja has no exp)
BITS = 60
SPACE = 2**BITS


@dataclass(frozen=True)
class DpTable:
    rows: list[tuple[int, int, int]]  # (z, lo, hi): a draw in [lo, hi) adds z
    tv: float  # total variation distance from the exact distribution
    variance: float
    bound: int  # T: |z| <= T

    def z(self, u: int) -> int:
        at = bisect.bisect_right([lo for _, lo, _ in self.rows], u) - 1
        z, lo, hi = self.rows[at]
        assert lo <= u < hi
        return z

    def probability(self, z: int) -> float:
        for row_z, lo, hi in self.rows:
            if row_z == z:
                return (hi - lo) / SPACE
        return 0.0


def scale_for(mechanism: str, amount: float, bound: int) -> float:
    """Laplace: m / epsilon; Gaussian: sqrt(m / (2 rho)) (as the macros compute it)."""
    return bound / amount if mechanism == "laplace" else (bound / (2 * amount)) ** 0.5


def table(mechanism: str, scale: float) -> DpTable:
    cap = int(scale * 50) + 50 if mechanism == "laplace" else int(scale * 12) + 12
    weights = [E ** (-z / scale) if mechanism == "laplace" else E ** (-(z * z) / (2 * scale * scale))
               for z in range(cap + 1)]
    total = 0.0
    for w in weights[1:]:
        total = total + w
    total = weights[0] + 2 * total
    bound = 0
    for z, w in enumerate(weights):
        if w / total >= 2**-40:
            bound = z
    outer, taken, rounding = [], 0, 0.0
    for z in range(1, bound + 1):
        p = weights[z] / total
        width = int(p * SPACE)
        outer.append(width)
        taken = taken + 2 * width
        rounding = rounding + 2 * (p - width / SPACE)
    widths = [SPACE - taken, *outer]
    tail = 0.0
    for w in weights[bound + 1:]:
        tail = tail + 2 * w / total
    tv = 0.5 * (abs(widths[0] / SPACE - weights[0] / total) + rounding + tail)
    rows, lo, variance = [], 0, 0.0
    for z in range(-bound, bound + 1):
        width = widths[abs(z)]
        rows.append((z, lo, lo + width))
        lo = lo + width
        variance = variance + z * z * width / SPACE
    return DpTable(rows, tv, variance, bound)


def exact_probability(mechanism: str, scale: float, z: int) -> float:
    """The exact (untruncated) discrete Laplace or Gaussian, by closed form or a wide sum."""
    if mechanism == "laplace":
        alpha = E ** (-1 / scale)
        return (1 - alpha) / (1 + alpha) * alpha ** abs(z)
    span = int(scale * 40) + 40
    norm = sum(E ** (-(x * x) / (2 * scale * scale)) for x in range(-span, span + 1))
    return E ** (-(z * z) / (2 * scale * scale)) / norm


def cell_text(labels: Sequence[str]) -> str:
    return ",".join(f"{len(label)}:{label}" for label in labels)


def draw(key_hex: str, nonce: str, labels: Sequence[str]) -> int:
    message = f"kanon:dp:v1:{nonce}:{cell_text(labels)}".encode()
    return int(hmac.new(bytes.fromhex(key_hex), message, hashlib.sha256).hexdigest()[: BITS // 4], 16)


def bounded_counts(person_cells: Mapping[str, Iterable[tuple[str, ...]]], cells: Iterable[tuple[str, ...]],
                   bound: int) -> tuple[dict[tuple[str, ...], int], int, int]:
    """People per declared cell, each person counted in at most `bound` of their cells (the
    first by md5 of cell and person, then by the labels); the (person, cell) pairs dropped by the
    bound, and the events in no declared cell. `person_cells` holds a cell per event."""
    declared = set(cells)
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    dropped = outside = 0
    for person, theirs in person_cells.items():
        theirs = list(theirs)
        outside += sum(c not in declared for c in theirs)
        inside = [c for c in sorted(set(theirs)) if c in declared]
        inside.sort(key=lambda c: (hashlib.md5(f"{cell_text(c)}:{person}".encode()).hexdigest(), c))
        for c in inside[:bound]:
            counts[c] += 1
        dropped += max(0, len(inside) - bound)
    return {c: counts.get(c, 0) for c in declared}, dropped, outside


def opendp_spent(mechanism: str, scale: float, bound: int) -> float:
    """What OpenDP's own accounting says the mechanism spends for a person in `bound` cells:
    epsilon over an L1 distance of bound (Laplace), rho over an L2 distance of sqrt(bound) (Gaussian)."""
    import opendp.prelude as opendp

    opendp.enable_features("contrib")
    domain = opendp.vector_domain(opendp.atom_domain(T=int))
    if mechanism == "laplace":
        measurement = opendp.m.make_laplace(domain, opendp.l1_distance(T=int), scale=scale)
        return float(measurement.map(d_in=bound))  # type: ignore[no-untyped-call]  # opendp is not annotated
    measurement = opendp.m.make_gaussian(domain, opendp.l2_distance(T=float), scale=scale)
    return float(measurement.map(d_in=bound**0.5))  # type: ignore[no-untyped-call]
