"""The Cell Key Method as kanon computes it in SQL, in plain Python: for tests, audits and replays.

    record key   int(first 8 hex digits of HMAC-SHA-256(key, "kanon:cell-key:v1:" + unit as text))
    cell key     the sum of the record keys of a cell's distinct people, modulo 2**32
    published    count + v, where v is the ptable's row for min(count, imax) whose interval
                 [key_from, key_to) holds the cell key; a count perturbed to 0 is not published

The macros kanon._noise_record_key, kanon._noise_group_count and kanon._noise_perturbed are the
same arithmetic; tests compare each warehouse's marts with these functions (golden vectors).
"""

from __future__ import annotations

import bisect
import hashlib
import hmac
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

KEY_SPACE = 2**32
RECORD_KEY_PREFIX = "kanon:cell-key:v1:"
# The example's noise key: public, for `make demo` and the tests only (the Makefile exports the
# same text when KANON_NOISE_KEY is unset). A real release needs a secret key of its own.
DEMO_KEY = "6b616e6f6e2d64656d6f2d6e6f6973652d6b65792d6e6f742d73656372657421"  # b"kanon-demo-noise-key-not-secret!"


def record_key(key_hex: str, unit: object) -> int:
    """A person's record key under the key (hex text), as kanon._noise_record_key computes it."""
    digest = hmac.new(bytes.fromhex(key_hex), (RECORD_KEY_PREFIX + str(unit)).encode("utf-8"), hashlib.sha256)
    return int(digest.hexdigest()[:8], 16)


def cell_key(key_hex: str, units: Iterable[object]) -> int:
    """The cell key of a set of people: their record keys summed, modulo 2**32."""
    return sum(record_key(key_hex, unit) for unit in set(units)) % KEY_SPACE


@dataclass(frozen=True)
class PtableRow:
    i: int
    j: int
    v: int
    key_from: int
    key_to: int


class Ptable:
    """A perturbation table: for each count i (0..imax), intervals of the key space and their v."""

    def __init__(self, rows: Iterable[PtableRow]) -> None:
        by_count: dict[int, list[PtableRow]] = {}
        for row in rows:
            by_count.setdefault(row.i, []).append(row)
        self.imax = max(by_count)
        self._rows = {i: sorted(found, key=lambda r: r.key_from) for i, found in by_count.items()}
        self._starts = {i: [r.key_from for r in found] for i, found in self._rows.items()}

    @classmethod
    def from_records(cls, records: Iterable[Mapping[str, object]]) -> Ptable:
        """From rows with the seed's columns (i, j, v, key_from, key_to; p is not needed)."""
        return cls(PtableRow(*(int(str(r[c])) for c in ("i", "j", "v", "key_from", "key_to"))) for r in records)

    def rows(self, count: int) -> Sequence[PtableRow]:
        return self._rows[min(count, self.imax)]

    def perturbation(self, count: int, key: int) -> int:
        """v for a cell of `count` people with cell key `key`."""
        i = min(count, self.imax)
        at = bisect.bisect_right(self._starts[i], key) - 1
        row = self._rows[i][at]
        if not row.key_from <= key < row.key_to:
            raise ValueError(f"the ptable does not cover cell key {key} for count {i}")
        return row.v

    def published(self, count: int, key: int) -> int:
        return count + self.perturbation(count, key)
