"""Deterministic library-circulation data: the kanon example seeds and benchmark-sized tables.

Each event is one loan: `patron_token, branch, age_band, title, borrowed_at`. A patron has a fixed
age band and a home branch (most loans there, some elsewhere). How much a patron borrows and how
popular a title is are both Zipf-like, so a branch x age band x title report is mostly cells of
fewer than 5 people, as in a real catalog. On top of the random loans, the thin cells listed in
`catalog.PLANTED` are planted exactly (e.g. one 13-17 patron at RIVERSIDE borrowing "Coping With a
Parent's Incarceration", twice, and nobody else ever borrowing it); planted titles are never
drawn at random.

`patron_token` is HMAC-SHA256 of the patron's integer id (1..patrons, as decimal ASCII) under
`--key`, hex, first 16 characters. The default key, `DEFAULT_KEY`, is public and fine for a demo
only: with real data use a secret key, or the token is just a pseudonym anyone can recompute.

The committed seeds under seeds/example were regenerated, from the repository root, with exactly:

    python -m kanon_tools generate --events 5000 \\
        --out-csv seeds/example/circulation_events.csv --hierarchy-dir seeds/example

(every other option at its default: --seed 2025 --year 2025, the default key, patrons and titles
scaled from --events). Editing `catalog.py` or the constants below changes those seeds: rerun it.

Benchmark-sized runs stream chunks of 1M events into DuckDB, Postgres (COPY) or Parquet, with
hierarchy tables `<table>_hierarchy_title`, `_branch`, `_age_band` next to the events:

    python -m kanon_tools generate --events 10M --duckdb /tmp/bench.duckdb --table events
    python -m kanon_tools generate --events 1M --postgres --table bench.events
    python -m kanon_tools generate --events 1M --parquet /tmp/events.parquet

`--profile thinner` shapes a thinner workload than the library's default (events/20 patrons,
events/30 titles of about equal popularity): at 10M events ~97% of ~5.9M branch x age band x
title cells hold fewer than 5 people, the benchmark's `thinner` report.

Determinism: the same arguments give the same rows in the same order (and byte-identical CSV and
Parquet files), whatever the output. All randomness comes from numpy PCG64 generators seeded from
(seed, purpose, chunk number), never from global state, time or dict order; weights are built
from +, -, *, / and sqrt only, which IEEE 754 rounds exactly on every machine.
"""

from __future__ import annotations

import csv
import hashlib
import io
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from kanon_tools.dev import catalog
from kanon_tools.warehouse import postgres_params

DEFAULT_EVENTS = 5_000
DEFAULT_SEED = 2025
DEFAULT_YEAR = 2025
DEFAULT_KEY = "kanon-demo-key-public-not-secret"
DEFAULT_TABLE = "circulation_events"

# Valid ranges (GeneratorConfig.validate and the CLI's argparse types enforce them). A seed is any
# whole number >= 0; counts go up to kanon_tools.cli.types.MAX_COUNT (2^63 - 1).
MIN_YEAR, MAX_YEAR = 1900, 2999
PLANTED_EVENTS = sum(sum(cell.loans) for cell in catalog.PLANTED)  # fewest --events: the planted loans
PLANTED_PATRONS = sum(len(cell.loans) for cell in catalog.PLANTED)  # fewest --patrons
CATALOG_TITLES = len(catalog.catalog_titles())  # fewest --titles: the built-in catalog

# The committed seeds' command, minus `python -m kanon_tools` (the tests rerun it).
SEED_COMMAND: tuple[str, ...] = (
    "generate",
    "--events",
    "5000",
    "--out-csv",
    "seeds/example/circulation_events.csv",
    "--hierarchy-dir",
    "seeds/example",
)

EVENT_COLUMNS: tuple[str, ...] = ("patron_token", "branch", "age_band", "title", "borrowed_at")
EVENT_SCHEMA = pa.schema(
    [
        ("patron_token", pa.string()),
        ("branch", pa.string()),
        ("age_band", pa.string()),
        ("title", pa.string()),
        ("borrowed_at", pa.timestamp("us")),
    ]
)
HIERARCHY_DIMENSIONS: tuple[str, ...] = ("title", "branch", "age_band")

# Rows per generated chunk. Part of the data's definition (each chunk has its own random stream),
# so changing it changes the rows of runs larger than one chunk; it is not an option.
CHUNK_EVENTS = 1_000_000
EVENTS_PER_TITLE = 25  # default catalog size: events / 25, never below the committed catalog
EVENTS_PER_PATRON = 6  # default patron count: events / 6 (5000 events -> 833 patrons, ~680 borrow)
MIN_PATRONS = 50
AWAY_SHARE = 0.15  # share of loans made away from the patron's home branch
# Title popularity is Zipf-Mandelbrot, weight 1/(rank + 8): the head's share shrinks slowly as the
# catalog grows, as in real collections.
TITLE_RANK_OFFSET = 8.0
# Patron activity is a power law in the rank *fraction* x = (rank + 1/2) / patrons: weight
# (x + 0.04)^-1.5. Its shape does not depend on the patron count, so loans per patron look alike at
# 5k and 100M events (median ~3, top 1% ~70+, ~18% of patrons borrow nothing in the year).
PATRON_HEAD = 0.04
PROGRESS_MIN_EVENTS = 1_000_000  # smaller runs finish before a bar would be useful
DUCKDB_MEMORY_LIMIT = "1GB"  # for the generator's own DuckDB connection only


@dataclass(frozen=True)
class Profile:
    """How a workload scales with the number of events, and how popularity spreads over titles."""

    events_per_patron: int
    events_per_title: int
    # Title popularity 1/(rank + offset); None: the offset is the number of titles, a flat catalog
    # (the most popular title twice as popular as the least) rather than a bestseller head.
    title_rank_offset: float | None
    description: str


PROFILES: dict[str, Profile] = {
    "default": Profile(EVENTS_PER_PATRON, EVENTS_PER_TITLE, TITLE_RANK_OFFSET,
                       "a public library: bestsellers, heavy borrowers; ~92% of branch x age band x title "
                       "cells below 5 people, ~2.75M cells at 10M events"),
    # The target workload (10M events, 500k people, hundreds of thousands of titles, 95% of
    # 5M+ finest cells below k): few people borrowing a lot across a long, flat catalog. Measured at
    # 10M events: 500k patrons, 333k titles, 5.91M cells, 96.9% of them below 5 people.
    "thinner": Profile(20, 30, None,
                       "a long flat catalog: events/20 patrons, events/30 titles of about equal popularity; "
                       "~97% of ~5.9M cells below 5 people at 10M events"),
}
DEFAULT_PROFILE = "default"

# Independent random streams, so that e.g. asking for more titles leaves the patrons alone.
_STREAM_PATRONS, _STREAM_TITLES, _STREAM_PLANTED, _STREAM_CHUNK = 0, 1, 2, 3

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class GeneratorConfig:
    """Everything that determines the generated rows."""

    events: int = DEFAULT_EVENTS
    seed: int = DEFAULT_SEED
    key: str = DEFAULT_KEY
    year: int = DEFAULT_YEAR
    patrons: int | None = None  # None: scale with events
    titles: int | None = None  # None: scale with events (total titles, catalog included)
    profile: str = DEFAULT_PROFILE  # a name in PROFILES: how patrons and titles scale, title popularity

    @property
    def shape(self) -> Profile:
        return PROFILES[self.profile]

    @property
    def n_patrons(self) -> int:
        if self.patrons is not None:
            return self.patrons
        return max(MIN_PATRONS, self.events // self.shape.events_per_patron)

    @property
    def n_titles(self) -> int:
        if self.titles is not None:
            return self.titles
        return max(len(catalog.catalog_titles()), self.events // self.shape.events_per_title)

    @property
    def title_rank_offset(self) -> float:
        offset = self.shape.title_rank_offset
        return float(self.n_titles) if offset is None else offset

    def validate(self) -> None:
        if self.profile not in PROFILES:
            raise ValueError(f"profile must be one of {', '.join(PROFILES)}, got {self.profile!r}")
        if self.events < PLANTED_EVENTS:
            raise ValueError(f"events must be at least {PLANTED_EVENTS} (the planted thin cells)")
        if self.n_patrons < PLANTED_PATRONS:
            raise ValueError(f"patrons must be at least {PLANTED_PATRONS} (the planted thin cells)")
        if self.n_titles < CATALOG_TITLES:
            raise ValueError(f"titles must be at least {CATALOG_TITLES} (the built-in catalog)")
        if not MIN_YEAR <= self.year <= MAX_YEAR:
            raise ValueError(f"year must be between {MIN_YEAR} and {MAX_YEAR}")
        if self.seed < 0:
            raise ValueError("seed must be a non-negative integer")


@dataclass
class GenerationSummary:
    events: int
    patrons: int
    active_patrons: int
    titles: int
    seconds: float
    outputs: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Chunk:
    patron: IntArray  # 0-based patron index (the token hashes index + 1)
    branch: IntArray
    age: IntArray
    title: IntArray
    seconds: IntArray  # borrowed_at, seconds since 1970-01-01 (naive local time)


def _rng(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def _draw(cumulative: FloatArray, uniforms: FloatArray) -> IntArray:
    """Inverse-CDF draw of indices with weights given as a cumulative sum (small tables)."""
    idx = np.searchsorted(cumulative, uniforms * cumulative[-1], side="right")
    # u * total can round up to total itself; that belongs to the last index.
    out: IntArray = np.minimum(idx, len(cumulative) - 1).astype(np.int64)
    return out


class Sampler:
    """`np.searchsorted(cumulative, x, side="right")` for big tables, ~10x faster.

    A plain binary search over millions of entries misses the cache at every step. A guide table
    (one bucket per entry, Chen & Asau) narrows each search to a few neighbouring entries, and the
    rest is a vectorized binary search over that window: the same answer, exactly.
    """

    def __init__(self, cumulative: FloatArray) -> None:
        self.cumulative = cumulative
        self.total = float(cumulative[-1])
        self.buckets = len(cumulative)
        edges = np.arange(self.buckets + 1, dtype=np.float64) * (self.total / self.buckets)
        dtype = np.int32 if len(cumulative) < 2**31 - 1 else np.int64
        self.guide = np.searchsorted(cumulative, edges, side="right").astype(dtype)
        self.guide[-1] = len(cumulative)  # the last edge may round below the total

    def search(self, x: FloatArray) -> IntArray:
        bucket = np.minimum((x * (self.buckets / self.total)).astype(np.int64), self.buckets - 1)
        # The bucket may be off by one through rounding: widen the window by one on each side.
        lo = self.guide[np.maximum(bucket - 1, 0)].astype(np.int64)
        hi = self.guide[np.minimum(bucket + 2, self.buckets)].astype(np.int64)
        last = len(self.cumulative) - 1
        while True:
            open_ = lo < hi
            if not open_.any():
                found: IntArray = lo
                return found
            mid = (lo + hi) >> 1
            right = self.cumulative[np.minimum(mid, last)] <= x
            lo = np.where(open_ & right, mid + 1, lo)
            hi = np.where(open_ & ~right, mid, hi)

    def draw(self, uniforms: FloatArray) -> IntArray:
        out: IntArray = np.minimum(self.search(uniforms * self.total), len(self.cumulative) - 1)
        return out


def patron_token_digests(key: str, n_patrons: int) -> npt.NDArray[np.uint8]:
    """(n_patrons, 8) bytes: row i is the first 8 bytes of HMAC-SHA256(key, str(i + 1)).

    HMAC is spelled out (RFC 2104) with the key pads hashed once: hmac.digest would redo them for
    every patron, which doubles the cost at millions of patrons. Kept as raw bytes (half the
    memory of hex) and turned into hex per chunk by `hex_tokens`.
    """
    raw_key = key.encode("utf-8")
    if len(raw_key) > 64:
        raw_key = hashlib.sha256(raw_key).digest()
    raw_key = raw_key.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in raw_key))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in raw_key))
    out = bytearray()
    for patron_id in range(1, n_patrons + 1):
        h = inner.copy()
        h.update(b"%d" % patron_id)
        o = outer.copy()
        o.update(h.digest())
        out += o.digest()[:8]
    return np.frombuffer(out, dtype=np.uint8).reshape(n_patrons, 8)


_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def hex_tokens(digests: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """(n, 8) bytes -> (n, 16) lower-case ASCII hex."""
    tokens = np.empty((len(digests), 16), dtype=np.uint8)
    tokens[:, 0::2] = _HEX_DIGITS[digests >> 4]
    tokens[:, 1::2] = _HEX_DIGITS[digests & 0x0F]
    return tokens


def patron_tokens_hex(key: str, n_patrons: int) -> npt.NDArray[np.uint8]:
    """(n_patrons, 16) ASCII hex: row i is the token of patron id i + 1."""
    return hex_tokens(patron_token_digests(key, n_patrons))


def patron_token(key: str, patron_id: int) -> str:
    """The token of one patron id, the slow obvious way (for checks and documentation)."""
    import hmac

    return hmac.digest(key.encode("utf-8"), str(patron_id).encode("ascii"), "sha256").hex()[:16]


def _fixed_width_strings(data: npt.NDArray[np.uint8]) -> pa.Array:
    """A pyarrow string array over the rows of an (n, width) ASCII byte matrix, without copies."""
    n, width = data.shape
    offsets = np.arange(0, (n + 1) * width, width, dtype=np.int64)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(data))]
    return pa.Array.from_buffers(pa.large_string(), n, buffers).cast(pa.string())


def _synthetic_titles(count: int) -> pa.Array:
    """'Title 000001' .. 'Title <count>', zero-padded to at least 6 digits, built vectorized."""
    width = max(6, len(str(count)))
    numbers = np.arange(1, count + 1, dtype=np.int64)
    prefix = np.frombuffer(b"Title ", dtype=np.uint8)
    data = np.empty((count, len(prefix) + width), dtype=np.uint8)
    data[:, : len(prefix)] = prefix
    for pos in range(width):
        data[:, len(prefix) + width - 1 - pos] = 48 + (numbers // 10**pos) % 10
    return _fixed_width_strings(data)


class _Calendar:
    """Maps u in [0, 1) monotonically onto opening hours of one year, weighted by season."""

    # (opening second, closing second) by weekday, Monday first.
    HOURS = ((9, 20), (9, 20), (9, 20), (9, 20), (9, 18), (10, 17), (12, 16))
    CLOSED = ((1, 1), (12, 25), (12, 26))
    # Loans per open hour by month, relative: summer reading, a quiet December.
    MONTH_FACTOR = (10, 10, 10, 10, 10, 11, 13, 13, 10, 10, 10, 8)

    def __init__(self, year: int) -> None:
        first = date(year, 1, 1).toordinal()
        days = date(year + 1, 1, 1).toordinal() - first
        epoch = date(1970, 1, 1).toordinal()
        day_start, open_at, factor, weight = [], [], [], []
        for offset in range(days):
            day = date.fromordinal(first + offset)
            opens, closes = self.HOURS[day.weekday()]
            open_seconds = 0 if (day.month, day.day) in self.CLOSED else (closes - opens) * 3600
            day_start.append((first + offset - epoch) * 86400)
            open_at.append(opens * 3600)
            factor.append(self.MONTH_FACTOR[day.month - 1])
            weight.append(open_seconds * self.MONTH_FACTOR[day.month - 1])
        self.day_start = np.array(day_start, dtype=np.int64)
        self.open_at = np.array(open_at, dtype=np.int64)
        self.factor = np.array(factor, dtype=np.int64)
        self.weight = np.array(weight, dtype=np.int64)
        self.cumulative = np.cumsum(self.weight)
        self.total = int(self.cumulative[-1])

    def seconds(self, u: FloatArray) -> IntArray:
        # Integer arithmetic after one exactly-rounded multiply keeps this machine-independent.
        t = np.minimum(np.floor(u * self.total).astype(np.int64), self.total - 1)
        day = np.searchsorted(self.cumulative, t, side="right")
        into_day = t - (self.cumulative[day] - self.weight[day])
        out: IntArray = self.day_start[day] + self.open_at[day] + into_day // self.factor[day]
        return out


class World:
    """The patrons, the catalog and the sampling tables for one GeneratorConfig."""

    def __init__(self, config: GeneratorConfig) -> None:
        config.validate()
        self.config = config
        self.calendar = _Calendar(config.year)
        self._build_branches_and_ages()
        self._build_patrons()
        self._build_titles()
        self._build_planted()

    # ---- vocabulary ----------------------------------------------------------------------
    def _build_branches_and_ages(self) -> None:
        self.branch_names = [name for name, _, _ in catalog.BRANCHES]
        self.branch_regions = [region for _, region, _ in catalog.BRANCHES]
        self.branch_cum = np.cumsum(np.array([w for _, _, w in catalog.BRANCHES], dtype=np.float64))
        self.age_cum = np.cumsum(np.array(catalog.AGE_WEIGHTS, dtype=np.float64))
        self.branch_array = pa.array(self.branch_names, type=pa.string())
        self.age_array = pa.array(list(catalog.AGE_BANDS), type=pa.string())

    # ---- patrons -------------------------------------------------------------------------
    def _build_patrons(self) -> None:
        n = self.config.n_patrons
        rng = _rng(self.config.seed, _STREAM_PATRONS)
        # int8: at 100M events there are ~17M patrons, and these stay in memory for the whole run.
        self.patron_age = _draw(self.age_cum, rng.random(n)).astype(np.int8)
        self.patron_home = _draw(self.branch_cum, rng.random(n)).astype(np.int8)
        # Activity rank 0 is the heaviest borrower; ranks are dealt out at random.
        y = (rng.permutation(n).astype(np.float64) + 0.5) / n + PATRON_HEAD
        self.patron_sampler = Sampler(np.cumsum(1.0 / (y * np.sqrt(y))))
        self._planting_order = rng.permutation(n)
        self.token_digests = patron_token_digests(self.config.key, n)

    # ---- titles --------------------------------------------------------------------------
    def _build_titles(self) -> None:
        config = self.config
        rng = _rng(config.seed, _STREAM_TITLES)
        entries = catalog.catalog_titles()
        n_catalog, n_total = len(entries), config.n_titles
        n_subjects = len(catalog.SUBJECTS)
        self.catalog_title_names = [title for title, _ in entries]
        self.title_index = {title: i for i, (title, _) in enumerate(entries)}
        # Synthetic titles go round the subjects in order: deterministic and seed-independent.
        self.title_subject = np.concatenate(
            [
                np.array([s for _, s in entries], dtype=np.int64),
                np.arange(n_total - n_catalog, dtype=np.int64) % n_subjects,
            ]
        )
        self.title_array = pa.concat_arrays(
            [pa.array(self.catalog_title_names, type=pa.string()), _synthetic_titles(n_total - n_catalog)]
        )
        classes = catalog.subject_classes()
        self.subject_names = [s.name for s in catalog.SUBJECTS]
        self.class_names = classes
        self.subject_class = np.array([classes.index(s.subject_class) for s in catalog.SUBJECTS], dtype=np.int64)

        planted = {self.title_index[cell.title] for cell in catalog.PLANTED}
        drawable_catalog = np.array([i for i in range(n_catalog) if i not in planted], dtype=np.int64)
        drawable = np.concatenate([drawable_catalog, np.arange(n_catalog, n_total, dtype=np.int64)])
        # Popularity ranks: the named catalog titles first (so the bestsellers of a big run are
        # recognizable), then the synthetic ones; shuffled within each group by the seed.
        rank = np.concatenate(
            [
                rng.permutation(len(drawable_catalog)),
                len(drawable_catalog) + rng.permutation(n_total - n_catalog),
            ]
        ).astype(np.float64)
        popularity = 1.0 / (rank + config.title_rank_offset)

        # Draw a title in two steps, subject (by age band) then title within the subject, which
        # needs one cumulative array over titles sorted by subject instead of one per age band.
        by_subject = np.argsort(self.title_subject[drawable], kind="stable")
        self.sample_titles = drawable[by_subject]
        self.sample_cum = np.cumsum(popularity[by_subject])
        self.title_sampler = Sampler(self.sample_cum)
        sorted_subjects = self.title_subject[self.sample_titles]
        subjects = np.arange(n_subjects)
        self.seg_start = np.searchsorted(sorted_subjects, subjects, side="left").astype(np.int64)
        self.seg_end = np.searchsorted(sorted_subjects, subjects, side="right").astype(np.int64)
        if np.any(self.seg_end <= self.seg_start):
            raise AssertionError("every subject needs at least one title that can be drawn")
        padded = np.concatenate([[0.0], self.sample_cum])
        self.seg_low = padded[self.seg_start]
        self.seg_mass = padded[self.seg_end] - self.seg_low
        affinity = np.array([s.affinity for s in catalog.SUBJECTS], dtype=np.float64)
        self.band_subject_cum = [
            np.cumsum(affinity[:, band] * self.seg_mass) for band in range(len(catalog.AGE_BANDS))
        ]

    # ---- planted thin cells --------------------------------------------------------------
    def _build_planted(self) -> None:
        """Pick the patrons of each planted cell and lay out their loans.

        Patrons whose age band and home branch already match are taken first (in a seeded
        order); if there are none left, the next unused patron is given that age and home.
        """
        rng = _rng(self.config.seed, _STREAM_PLANTED)
        used: set[int] = set()
        rows: list[tuple[int, int, int, int]] = []
        for cell in catalog.PLANTED:
            band = catalog.AGE_BANDS.index(cell.age_band)
            branch = self.branch_names.index(cell.branch)
            title = self.title_index[cell.title]
            for loans in cell.loans:
                patron = self._planted_patron(band, branch, used)
                rows.extend((patron, branch, band, title) for _ in range(loans))
        table = np.array(rows, dtype=np.int64).reshape(-1, 4)
        u = rng.random(len(rows))
        order = np.argsort(u, kind="stable")
        self.planted_u = u[order]
        self.planted = table[order]
        del self._planting_order  # only needed to choose the planted patrons

    def _planted_patron(self, band: int, branch: int, used: set[int]) -> int:
        for candidate in self._planting_order:
            p = int(candidate)
            if p not in used and self.patron_age[p] == band and self.patron_home[p] == branch:
                used.add(p)
                return p
        for candidate in self._planting_order:
            p = int(candidate)
            if p not in used:
                used.add(p)
                self.patron_age[p], self.patron_home[p] = band, branch
                return p
        raise AssertionError("not enough patrons for the planted cells")  # validate() prevents it

    # ---- events --------------------------------------------------------------------------
    @property
    def random_events(self) -> int:
        return self.config.events - len(self.planted)

    @property
    def n_chunks(self) -> int:
        return max(1, -(-self.random_events // CHUNK_EVENTS))

    def chunk(self, k: int) -> _Chunk:
        """Chunk k of the events, in borrowed_at order; chunks follow each other in time."""
        total = self.random_events
        first, last = k * CHUNK_EVENTS, min(total, (k + 1) * CHUNK_EVENTS)
        n = max(0, last - first)
        rng = _rng(self.config.seed, _STREAM_CHUNK, k)
        # Chunk k owns the slice [lo, hi) of the year's u range, so time order holds across chunks.
        lo = first / total if total else 0.0
        hi = 1.0 if k == self.n_chunks - 1 else last / total
        u = np.sort(lo + rng.random(n) * (hi - lo))
        patron = self.patron_sampler.draw(rng.random(n))
        age = self.patron_age[patron].astype(np.int64)
        away = rng.random(n) < AWAY_SHARE
        branch = np.where(away, _draw(self.branch_cum, rng.random(n)), self.patron_home[patron].astype(np.int64))
        subject = np.empty(n, dtype=np.int64)
        u_subject = rng.random(n)
        for band, cum in enumerate(self.band_subject_cum):
            mask = age == band
            subject[mask] = _draw(cum, u_subject[mask])
        x = self.seg_low[subject] + rng.random(n) * self.seg_mass[subject]
        pos = self.title_sampler.search(x)
        # Rounding at a segment edge must not leak into the neighbouring subject.
        pos = np.clip(pos, self.seg_start[subject], self.seg_end[subject] - 1)
        title = self.sample_titles[pos]

        in_chunk = (self.planted_u >= lo) & ((self.planted_u < hi) | (k == self.n_chunks - 1))
        if np.any(in_chunk):
            p = self.planted[in_chunk]
            u = np.concatenate([u, self.planted_u[in_chunk]])
            order = np.argsort(u, kind="stable")
            u = u[order]
            patron = np.concatenate([patron, p[:, 0]])[order]
            branch = np.concatenate([branch, p[:, 1]])[order]
            age = np.concatenate([age, p[:, 2]])[order]
            title = np.concatenate([title, p[:, 3]])[order]
        return _Chunk(patron, branch, age, title, self.calendar.seconds(u))

    def chunks(self) -> Iterator[_Chunk]:
        for k in range(self.n_chunks):
            yield self.chunk(k)

    def to_arrow(self, chunk: _Chunk) -> pa.Table:
        return pa.table(
            [
                _fixed_width_strings(hex_tokens(self.token_digests[chunk.patron])),
                self.branch_array.take(pa.array(chunk.branch)),
                self.age_array.take(pa.array(chunk.age)),
                self.title_array.take(pa.array(chunk.title)),
                pa.array(chunk.seconds.astype("datetime64[s]").astype("datetime64[us]")),
            ],
            schema=EVENT_SCHEMA,
        )

    # ---- hierarchies ---------------------------------------------------------------------
    def hierarchies(self) -> dict[str, pa.Table]:
        """level_0 (the leaf as in the events) .. level_n (the root '*') for each dimension."""
        root = catalog.ROOT_LABEL
        n_titles = len(self.title_array)
        subject_array = pa.array(self.subject_names, type=pa.string())
        class_array = pa.array(self.class_names, type=pa.string())
        title = pa.table(
            {
                "level_0": self.title_array,
                "level_1": subject_array.take(pa.array(self.title_subject)),
                "level_2": class_array.take(pa.array(self.subject_class[self.title_subject])),
                "level_3": pa.repeat(pa.scalar(root, pa.string()), n_titles),
            }
        )
        branch = pa.table(
            {
                "level_0": self.branch_array,
                "level_1": pa.array(self.branch_regions, type=pa.string()),
                "level_2": pa.array([root] * len(self.branch_names), type=pa.string()),
            }
        )
        age = pa.table(
            {
                "level_0": self.age_array,
                "level_1": pa.array([catalog.AGE_PARENT[b] for b in catalog.AGE_BANDS], type=pa.string()),
                "level_2": pa.array([root] * len(catalog.AGE_BANDS), type=pa.string()),
            }
        )
        return {"title": title, "branch": branch, "age_band": age}


# ---- outputs -------------------------------------------------------------------------------


class _Sink(Protocol):
    def write(self, events: pa.Table) -> None: ...

    def write_hierarchies(self, hierarchies: dict[str, pa.Table]) -> None: ...

    def close(self, ok: bool) -> None: ...


def _csv_rows(table: pa.Table) -> Iterator[Sequence[Any]]:
    columns: list[Any] = []
    for name in table.column_names:
        column = table.column(name)
        if pa.types.is_timestamp(column.type):
            stamps = np.datetime_as_string(column.to_numpy().astype("datetime64[s]"), unit="s")
            columns.append([s.replace("T", " ") for s in stamps.tolist()])
        else:
            columns.append(column.to_pylist())
    return zip(*columns, strict=True)


def _write_csv_table(path: Path, table: pa.Table) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(table.column_names)
        writer.writerows(_csv_rows(table))


class _CsvSink:
    """Minimal quoting and \\n line ends: the committed seeds are plain, diffable CSV."""

    def __init__(self, path: Path | None, hierarchy_dir: Path | None) -> None:
        self.hierarchy_dir = hierarchy_dir
        self.handle: io.TextIOWrapper | None = None
        self.writer: Any = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            # Open across chunks; run() closes it through close(), also on failure.
            self.handle = open(path, "w", newline="", encoding="utf-8")  # noqa: SIM115
            self.writer = csv.writer(self.handle, lineterminator="\n")
            self.writer.writerow(EVENT_COLUMNS)

    def write(self, events: pa.Table) -> None:
        if self.writer is not None:
            self.writer.writerows(_csv_rows(events))

    def write_hierarchies(self, hierarchies: dict[str, pa.Table]) -> None:
        if self.hierarchy_dir is not None:
            for dim, table in hierarchies.items():
                _write_csv_table(self.hierarchy_dir / f"hierarchy_{dim}.csv", table)

    def close(self, ok: bool) -> None:
        if self.handle is not None:
            self.handle.close()


def _split_name(name: str) -> tuple[str | None, str]:
    parts = name.split(".")
    if len(parts) == 1 and parts[0]:
        return None, parts[0]
    if len(parts) == 2 and all(parts):
        return parts[0], parts[1]
    raise ValueError(f"table must be `name` or `schema.name`, got {name!r}")


def _quote_name(name: str) -> str:
    schema, table = _split_name(name)
    quoted = '"' + table.replace('"', '""') + '"'
    return quoted if schema is None else '"' + schema.replace('"', '""') + '".' + quoted


def _hierarchy_names(table: str, prefix: str | None) -> dict[str, str]:
    base = prefix if prefix is not None else f"{table}_hierarchy_"
    return {dim: f"{base}{dim}" for dim in HIERARCHY_DIMENSIONS}


_EVENTS_DDL = "(patron_token varchar, branch varchar, age_band varchar, title varchar, borrowed_at timestamp)"


def _hierarchy_ddl(table: pa.Table) -> str:
    return "(" + ", ".join(f"{name} varchar" for name in table.column_names) + ")"


class _DuckDBSink:
    """One insert (and commit) per chunk: a single 10M-row transaction is slower and makes
    DuckDB hold much more memory. A failed run drops what it created."""

    def __init__(self, path: Path, table: str, hierarchy_prefix: str | None) -> None:
        import duckdb

        self.table = table
        self.names = _hierarchy_names(table, hierarchy_prefix)
        path.parent.mkdir(parents=True, exist_ok=True)
        self.con = duckdb.connect(str(path))
        # A pure load gains nothing from DuckDB caching the blocks it has written, and by
        # default DuckDB may hold up to 80% of RAM: cap it, so a 100M run stays a few GB.
        self.con.execute(f"set memory_limit = '{DUCKDB_MEMORY_LIMIT}'")
        self.created: list[str] = []
        self._create(table, _EVENTS_DDL)

    def _create(self, name: str, ddl: str) -> None:
        schema, _ = _split_name(name)
        if schema is not None:
            self.con.execute(f'create schema if not exists "{schema.replace(chr(34), chr(34) * 2)}"')
        self.con.execute(f"drop table if exists {_quote_name(name)}")
        self.con.execute(f"create table {_quote_name(name)} {ddl}")
        self.created.append(name)

    def _insert(self, name: str, data: pa.Table) -> None:
        # DuckDB scans the registered Arrow table in place: no Python-level row conversion.
        self.con.register("_kanon_generate_chunk", data)
        try:
            self.con.execute(f"insert into {_quote_name(name)} select * from _kanon_generate_chunk")
        finally:
            self.con.unregister("_kanon_generate_chunk")

    def write(self, events: pa.Table) -> None:
        self._insert(self.table, events)

    def write_hierarchies(self, hierarchies: dict[str, pa.Table]) -> None:
        for dim, data in hierarchies.items():
            self._create(self.names[dim], _hierarchy_ddl(data))
            self._insert(self.names[dim], data)

    def close(self, ok: bool) -> None:
        try:
            if not ok:
                for name in self.created:
                    self.con.execute(f"drop table if exists {_quote_name(name)}")
        finally:
            self.con.close()


class _PostgresSink:
    """COPY ... FROM STDIN in CSV, one chunk at a time, all in one transaction."""

    def __init__(self, table: str, hierarchy_prefix: str | None, dsn: str | None) -> None:
        import psycopg2

        self.table = table
        self.names = _hierarchy_names(table, hierarchy_prefix)
        self.conn = psycopg2.connect(dsn) if dsn is not None else psycopg2.connect(**postgres_params())
        self.conn.set_client_encoding("UTF8")
        self.cur = self.conn.cursor()
        self._create(table, _EVENTS_DDL)

    def _create(self, name: str, ddl: str) -> None:
        schema, _ = _split_name(name)
        if schema is not None:
            self.cur.execute(f'create schema if not exists "{schema.replace(chr(34), chr(34) * 2)}"')
        self.cur.execute(f"drop table if exists {_quote_name(name)}")
        self.cur.execute(f"create table {_quote_name(name)} {ddl}")

    def _copy(self, name: str, data: pa.Table) -> None:
        import pyarrow.csv as pacsv

        buffer = io.BytesIO()
        pacsv.write_csv(data, buffer, pacsv.WriteOptions(include_header=False))
        buffer.seek(0)
        columns = ", ".join(data.column_names)
        self.cur.copy_expert(f"copy {_quote_name(name)} ({columns}) from stdin with (format csv)", buffer)

    def write(self, events: pa.Table) -> None:
        self._copy(self.table, events)

    def write_hierarchies(self, hierarchies: dict[str, pa.Table]) -> None:
        for dim, data in hierarchies.items():
            self._create(self.names[dim], _hierarchy_ddl(data))
            self._copy(self.names[dim], data)

    def close(self, ok: bool) -> None:
        try:
            if ok:
                self.conn.commit()
                # Fresh statistics, so a benchmark's first query is not planned blind.
                self.conn.autocommit = True
                for name in [self.table, *self.names.values()]:
                    self.cur.execute(f"analyze {_quote_name(name)}")
            else:
                self.conn.rollback()
        finally:
            self.conn.close()


class _ParquetSink:
    """One row group per chunk; hierarchies as `<stem>_hierarchy_<dim>.parquet` beside it."""

    def __init__(self, path: Path, hierarchy_prefix: str | None) -> None:
        import pyarrow.parquet as pq

        self.path = path
        self.prefix = hierarchy_prefix if hierarchy_prefix is not None else f"{path.stem}_hierarchy_"
        path.parent.mkdir(parents=True, exist_ok=True)
        self.writer = pq.ParquetWriter(str(path), EVENT_SCHEMA, compression="zstd")

    def write(self, events: pa.Table) -> None:
        self.writer.write_table(events, row_group_size=max(1, events.num_rows))

    def write_hierarchies(self, hierarchies: dict[str, pa.Table]) -> None:
        import pyarrow.parquet as pq

        for dim, data in hierarchies.items():
            pq.write_table(data, str(self.path.parent / f"{self.prefix}{dim}.parquet"), compression="zstd")

    def close(self, ok: bool) -> None:
        self.writer.close()


@dataclass
class Outputs:
    """Where one run writes; any combination, all fed from a single pass of the generator."""

    csv: Path | None = None
    hierarchy_dir: Path | None = None
    duckdb: Path | None = None
    postgres: bool = False
    postgres_dsn: str | None = None
    parquet: Path | None = None
    table: str = DEFAULT_TABLE
    hierarchy_prefix: str | None = None

    def describe(self) -> list[str]:
        out = []
        if self.csv is not None:
            out.append(f"csv {self.csv}")
        if self.hierarchy_dir is not None:
            out.append(f"hierarchy CSVs in {self.hierarchy_dir}")
        if self.duckdb is not None:
            out.append(f"duckdb {self.duckdb} table {self.table}")
        if self.postgres:
            out.append(f"postgres table {self.table}")
        if self.parquet is not None:
            out.append(f"parquet {self.parquet}")
        return out

    @property
    def needs_events(self) -> bool:
        return self.csv is not None or self.duckdb is not None or self.postgres or self.parquet is not None


def run(config: GeneratorConfig, outputs: Outputs, *, quiet: bool = True) -> GenerationSummary:
    """Generate once and write to every requested output. Returns what was written."""
    started = time.perf_counter()
    world = World(config)
    sinks: list[_Sink] = []
    ok = False
    seen = np.zeros(config.n_patrons, dtype=bool)
    written = 0
    try:
        if outputs.csv is not None or outputs.hierarchy_dir is not None:
            sinks.append(_CsvSink(outputs.csv, outputs.hierarchy_dir))
        if outputs.duckdb is not None:
            sinks.append(_DuckDBSink(outputs.duckdb, outputs.table, outputs.hierarchy_prefix))
        if outputs.postgres:
            sinks.append(_PostgresSink(outputs.table, outputs.hierarchy_prefix, outputs.postgres_dsn))
        if outputs.parquet is not None:
            sinks.append(_ParquetSink(outputs.parquet, outputs.hierarchy_prefix))
        hierarchies = world.hierarchies()
        for sink in sinks:
            sink.write_hierarchies(hierarchies)
        if outputs.needs_events:
            from tqdm import tqdm

            with tqdm(
                total=config.events,
                unit=" events",
                unit_scale=True,
                disable=quiet or config.events < PROGRESS_MIN_EVENTS,
                file=sys.stderr,
            ) as bar:
                for chunk in world.chunks():
                    table = world.to_arrow(chunk)
                    for sink in sinks:
                        sink.write(table)
                    seen[chunk.patron] = True
                    written += table.num_rows
                    bar.update(table.num_rows)
        ok = True
    finally:
        errors: list[BaseException] = []
        for sink in sinks:
            try:
                sink.close(ok)
            except Exception as exc:  # close every sink even if one fails
                errors.append(exc)
        if ok and errors:
            raise errors[0]
    return GenerationSummary(
        events=written,
        patrons=config.n_patrons,
        active_patrons=int(seen.sum()),
        titles=config.n_titles,
        seconds=time.perf_counter() - started,
        outputs=outputs.describe(),
    )


# ---- plain-Python entry points (used by the benchmark runner and the tests) ----------------


def iter_event_tables(config: GeneratorConfig | None = None) -> Iterator[pa.Table]:
    """The events as a stream of Arrow tables (one per chunk), in borrowed_at order."""
    world = World(config or GeneratorConfig())
    for chunk in world.chunks():
        yield world.to_arrow(chunk)


def hierarchy_tables(config: GeneratorConfig | None = None) -> dict[str, pa.Table]:
    """The title, branch and age_band hierarchies (level_0 .. level_n) matching `config`."""
    return World(config or GeneratorConfig()).hierarchies()


def write_csv(
    path: str | Path,
    *,
    hierarchy_dir: str | Path | None = None,
    events: int = DEFAULT_EVENTS,
    seed: int = DEFAULT_SEED,
    key: str = DEFAULT_KEY,
    year: int = DEFAULT_YEAR,
    patrons: int | None = None,
    titles: int | None = None,
    profile: str = DEFAULT_PROFILE,
    quiet: bool = True,
) -> GenerationSummary:
    config = GeneratorConfig(events, seed, key, year, patrons, titles, profile)
    outputs = Outputs(csv=Path(path), hierarchy_dir=None if hierarchy_dir is None else Path(hierarchy_dir))
    return run(config, outputs, quiet=quiet)


def write_duckdb(
    path: str | Path,
    table: str = DEFAULT_TABLE,
    *,
    hierarchy_prefix: str | None = None,
    events: int = DEFAULT_EVENTS,
    seed: int = DEFAULT_SEED,
    key: str = DEFAULT_KEY,
    year: int = DEFAULT_YEAR,
    patrons: int | None = None,
    titles: int | None = None,
    profile: str = DEFAULT_PROFILE,
    quiet: bool = True,
) -> GenerationSummary:
    """Replace `table` (and `<table>_hierarchy_*`, or `<hierarchy_prefix>*`) in a DuckDB file."""
    config = GeneratorConfig(events, seed, key, year, patrons, titles, profile)
    outputs = Outputs(duckdb=Path(path), table=table, hierarchy_prefix=hierarchy_prefix)
    return run(config, outputs, quiet=quiet)


def write_postgres(
    table: str = DEFAULT_TABLE,
    *,
    dsn: str | None = None,
    hierarchy_prefix: str | None = None,
    events: int = DEFAULT_EVENTS,
    seed: int = DEFAULT_SEED,
    key: str = DEFAULT_KEY,
    year: int = DEFAULT_YEAR,
    patrons: int | None = None,
    titles: int | None = None,
    profile: str = DEFAULT_PROFILE,
    quiet: bool = True,
) -> GenerationSummary:
    """Replace `table` (`name` or `schema.name`) and its hierarchies in Postgres.

    Connects with `dsn` when given, else with the libpq variables (defaults as in profiles.yml).
    """
    config = GeneratorConfig(events, seed, key, year, patrons, titles, profile)
    outputs = Outputs(postgres=True, postgres_dsn=dsn, table=table, hierarchy_prefix=hierarchy_prefix)
    return run(config, outputs, quiet=quiet)


def write_parquet(
    path: str | Path,
    *,
    hierarchy_prefix: str | None = None,
    events: int = DEFAULT_EVENTS,
    seed: int = DEFAULT_SEED,
    key: str = DEFAULT_KEY,
    year: int = DEFAULT_YEAR,
    patrons: int | None = None,
    titles: int | None = None,
    profile: str = DEFAULT_PROFILE,
    quiet: bool = True,
) -> GenerationSummary:
    config = GeneratorConfig(events, seed, key, year, patrons, titles, profile)
    outputs = Outputs(parquet=Path(path), hierarchy_prefix=hierarchy_prefix)
    return run(config, outputs, quiet=quiet)


# ---- the command ------------------------------------------------------------------------------


def command(config: GeneratorConfig, outputs: Outputs, *, quiet: bool = False) -> int:
    """`python -m kanon_tools generate` (kanon_tools.cli.generate parses it): write `outputs`, or say in
    one line why not (exit 2: nothing to write, a value out of range, a bad table name)."""
    if not outputs.describe():
        print("generate: nothing to write; give --out-csv, --hierarchy-dir, --duckdb, --postgres or --parquet",
              file=sys.stderr)
        return 2
    try:
        _split_name(outputs.table)
        config.validate()
    except ValueError as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    summary = run(config, outputs, quiet=quiet)
    if not quiet:
        print(
            f"generated {summary.events:,} events ({summary.active_patrons:,} of {summary.patrons:,} patrons "
            f"borrowing, {summary.titles:,} titles) in {summary.seconds:.1f}s -> " + "; ".join(summary.outputs),
            file=sys.stderr,
        )
    return 0
