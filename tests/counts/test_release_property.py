"""Property tests: kanon.release_counts, built by dbt on DuckDB (and Postgres), against the oracle.

Hypothesis draws many small, independent *cases* (events plus a hierarchy per dimension) and
release *configurations* (dimensions and depths, k, default or custom cumulative ladder, null
policy, remainder, count_rows, count column, a `count(*)` measure), with a fixed seed. Running
dbt costs seconds, so generation and building are separate: the cases are collected first, then
batched. Every case gets a `case_id`, one more release dimension WITHOUT a hierarchy (so no group
ever mixes two cases), and every label of its hierarchies and events is prefixed with its id
(`c17:...`), except the shared root `*`. A *batch* is one configuration over 24 cases: one events
seed (all columns varchar), one hierarchy seed per hierarchical dimension (all cases, same
depth) and one release model. Several batches go into one `dbt build`.

For every batch the oracle (tests/oracles/counts.py) runs on exactly the events and hierarchies the
seeds hold, and the mart must equal it as a multiset, case by case; the remainder row (at most
one per batch: it pools the suppressed events of every case) is compared on its own, and a
second model per batch (a *remainder probe*) releases the same seeds with remainder=true and k
set where the remainder lands on its boundary. From the oracle's per-event fates the tests also
recheck, from the raw events, that every event ends in exactly one released row, the suppressed
set or (null_policy='suppress') the dropped set, and that every released row stands for at least
k people (k events with count_rows) of one case, all mapped to the row's labels.

The worked example of the documentation and a few hand-made edge cases are built alongside.
test_postgres_releases_the_duckdb_rows builds two more batches on DuckDB and Postgres and
requires the same rows on both (and the oracle's). Failures name the case, its configuration
and the diff, then list its hierarchies and events. Run with -s to see how many cases were
compared.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import shutil
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from oracles.counts import Dominance, Hierarchy, Release, count_star, release_counts
from support import ROOT
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

PROJECT = "kanon_release_property"
CASE_ID = "case_id"
PU = "pu"
# Dimension names that need quoting: upper case and a space, a reserved word.
HIER_DIMS = ("dim_a", "Dim B", "select")
FLAT_DIM = "flat x"  # a second dimension without hierarchy, besides case_id
ROOT_LABEL = "*"
MEASURE = "n_events"

# Pieces of labels: apostrophes, double quotes, commas, backslashes, non-ASCII, inner and
# trailing spaces. Every hierarchy label is prefixed with its case id, so none of these can be
# read as NULL by a seed loader.
TOKENS = (
    "a",
    "b",
    "c",
    "O'Brien",
    "l'été",
    'say "hi"',
    "'",
    '"',
    "café",
    "Zürich",
    "北京",
    "😀",
    "x,y",
    "back\\slash",
    "100%",
    "a  b",
    "end ",
    "{{ nope }}",
)
GROUP_NAMES = ("North", "Süd", "King's", '"Q"', "東")
# Values of the flat dimension are not prefixed (groups are kept apart by case_id anyway); '*'
# must stay apart from NULL, which is released as ('*', 1).
FLAT_VALUES = ("x", "y", "*", "Ö'z", '"q"')
PEOPLE = ("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7")

MAX_DEPTH = 3  # cases are drawn with hierarchies this deep; a batch cuts them to its depths

# Default run: MAIN_BUILDS dbt builds of BATCHES_PER_BUILD batches of CASES_PER_BATCH cases.
MAIN_BUILDS = 4
BATCHES_PER_BUILD = 5
CASES_PER_BATCH = 24
MIN_CASES_MAIN = 300
# Postgres against DuckDB: CROSS_BATCHES more batches, in one build per warehouse.
CROSS_BATCHES = 2
MIN_CASES_CROSS = 40


# --------------------------------------------------------------------------------------------
# What hypothesis draws: release configurations, and cases that fit any of them


@dataclass(frozen=True)
class Config:
    """One release configuration: everything a model passes to kanon.release_counts."""

    dims: tuple[str, ...]  # in release order, case_id included
    depths: tuple[tuple[str, int], ...]  # hierarchical dimension -> depth of its hierarchy
    k: int
    ladder: tuple[tuple[tuple[str, int], ...], ...] | None
    null_policy: str
    remainder: bool
    count_rows: bool
    count_column: str
    measure: bool
    # (rule, n, percent) of a dominance rule on the events per person (value '1'), or None
    dominance: tuple[str, int, int] | None = None

    @property
    def depth_of(self) -> dict[str, int]:
        return dict(self.depths)

    @property
    def data_dims(self) -> list[str]:
        return [d for d in self.dims if d != CASE_ID]

    def ladder_dicts(self) -> list[dict[str, int]] | None:
        return None if self.ladder is None else [dict(step) for step in self.ladder]


@dataclass(frozen=True)
class RawCase:
    """A case before it gets an id (labels not prefixed), for every dimension there could be:
    a hierarchy MAX_DEPTH deep per HIER_DIMS, and per event a value of each of HIER_DIMS and
    FLAT_DIM. A batch keeps only the dimensions it releases and cuts each hierarchy to the depth
    it uses."""

    hierarchies: tuple[tuple[tuple[str, ...], ...], ...]  # in HIER_DIMS order
    events: tuple[tuple[str | None, tuple[str | None, ...]], ...]  # (pu, (*HIER_DIMS, FLAT_DIM))


@st.composite
def ladders(draw: st.DrawFn, depths: dict[str, int]) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Cumulative custom ladders: absolute levels, up or down, repeats, upper-case names."""
    names = sorted(depths)
    steps = []
    for _ in range(draw(st.integers(0, 5))):
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
        step = []
        for name in chosen:
            # Dimension names in a ladder match case-insensitively.
            spelled = name.upper() if draw(st.integers(0, 7)) == 0 else name
            step.append((spelled, draw(st.integers(0, depths[name]))))
        steps.append(tuple(step))
    return tuple(steps)


@st.composite
def configs(draw: st.DrawFn) -> Config:
    n_hier = draw(st.sampled_from((0, 1, 2, 2, 3, 3)))
    hier = list(HIER_DIMS[:n_hier])
    flat = [FLAT_DIM] if (n_hier == 0 or draw(st.booleans())) else []
    dims = list(draw(st.permutations(hier + flat)))
    dims.insert(draw(st.integers(0, len(dims))), CASE_ID)
    depths = {d: draw(st.integers(1, MAX_DEPTH)) for d in hier}
    # Without hierarchies only the empty ladder (or none) is valid.
    ladder = draw(st.none() | ladders(depths)) if hier else draw(st.sampled_from((None, ())))
    return Config(
        dims=tuple(dims),
        depths=tuple(sorted(depths.items())),
        k=draw(st.integers(2, 5)),
        ladder=ladder,
        null_policy=draw(st.sampled_from(("root", "suppress"))),
        remainder=draw(st.booleans()),
        count_rows=(count_rows := draw(st.integers(0, 2)) == 0),
        count_column=draw(st.sampled_from(("people", "n_units"))),
        measure=draw(st.integers(0, 4)) != 0,
        # a dominance rule needs people to rank: never with count_rows
        dominance=None if count_rows else draw(st.sampled_from(
            (None, None, None, ("nk", 1, 50), ("nk", 2, 75), ("p_percent", 0, 40)))),
    )


@st.composite
def hierarchy_rows(draw: st.DrawFn) -> tuple[tuple[str, ...], ...]:
    """Unprefixed rows (leaf, level 1, ..., root) of a tree MAX_DEPTH deep; rarely none."""
    n_leaves = draw(st.sampled_from((1, 2, 3, 4, 5, 1, 2, 3, 0)))
    leaves = draw(st.lists(st.sampled_from(TOKENS), min_size=n_leaves, max_size=n_leaves, unique=True))
    rows = []
    for leaf in leaves:
        group = draw(st.integers(0, len(GROUP_NAMES) - 1))
        # Sometimes a leaf is its own parent (like '65+' -> '65+'): same label, two levels.
        own_parent = draw(st.integers(0, 5)) == 0
        labels = [leaf]
        for level in range(1, MAX_DEPTH):
            g = group >> (level - 1)
            labels.append(leaf if own_parent and level == 1 else f"{GROUP_NAMES[g]}^{level}")
        labels.append(ROOT_LABEL)
        rows.append(tuple(labels))
    return tuple(rows)


def cut(row: tuple[str, ...], depth: int) -> tuple[str, ...]:
    """A MAX_DEPTH row cut to `depth`: its first `depth` labels, then the root."""
    return (*row[:depth], row[-1])


@st.composite
def raw_cases(draw: st.DrawFn) -> RawCase:
    hierarchies = tuple(draw(hierarchy_rows()) for _ in HIER_DIMS)
    choices: list[list[str | None]] = []
    for rows in hierarchies:
        leaves: list[str | None] = [row[0] for row in rows]
        inner = sorted({row[1] for row in rows} - {row[0] for row in rows})
        # Mostly leaves; also NULL, a value missing from the hierarchy, a level-1 label (not a
        # leaf either, once the hierarchy is at least 2 deep).
        choices.append([*(leaves * 4), None, "zz-missing", *inner[:1]] if leaves else [None, "zz-missing"])
    choices.append([*FLAT_VALUES, None])
    people: list[str | None] = [*PEOPLE, *PEOPLE[:4], None]
    event = st.tuples(st.sampled_from(people), st.tuples(*(st.sampled_from(c) for c in choices)))
    n_events = draw(st.sampled_from((0, *range(1, 25))))
    events = draw(st.lists(event, min_size=n_events, max_size=n_events))
    return RawCase(hierarchies=hierarchies, events=tuple(events))


def collect_distinct(strategy: st.SearchStrategy[Any], count: int, budget: int) -> list[Any]:
    """The first `count` distinct examples hypothesis draws from `strategy`, with a fixed seed.

    Generation only, no dbt: examples are collected here and built together later, many cases
    per `dbt build`. Shrinking is off (a build costs seconds); a failure names the case and shows
    its events, hierarchies and diff instead.
    """
    collected: list[Any] = []

    @settings(
        max_examples=budget,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example: Any) -> None:
        if len(collected) < count and example not in collected:
            collected.append(example)

    collect()
    assert len(collected) == count, f"hypothesis drew only {len(collected)} distinct examples"
    return collected


@dataclass(frozen=True)
class RawBatch:
    config: Config
    cases: tuple[RawCase, ...]


def variety(batch_configs: Sequence[Config]) -> int:
    """How many different kinds of release a list of configurations covers."""
    return len(
        {
            (c.k, c.null_policy, c.remainder, c.count_rows, c.ladder is None, len(c.depths))
            for c in batch_configs
        }
    )


@functools.cache
def drawn_batches() -> tuple[RawBatch, ...]:
    """Every batch of the run, one fixed sequence (derandomized): the DuckDB test builds the
    first MAIN_BUILDS * BATCHES_PER_BUILD, the Postgres test the CROSS_BATCHES after them.

    The configurations are drawn together, as one list (draws within one example are
    independent, while successive examples tend to be near copies of each other), keeping the
    most varied of a few lists. Cases are drawn one per example: they are small, and many.
    """
    total = MAIN_BUILDS * BATCHES_PER_BUILD + CROSS_BATCHES
    lists = collect_distinct(st.lists(configs(), min_size=total, max_size=total), 6, budget=12)
    batch_configs = max(lists, key=variety)
    n_cases = total * CASES_PER_BATCH
    cases = collect_distinct(raw_cases(), n_cases, budget=n_cases * 3 // 2)
    return tuple(
        RawBatch(batch_configs[i], tuple(cases[i * CASES_PER_BATCH : (i + 1) * CASES_PER_BATCH]))
        for i in range(total)
    )


# --------------------------------------------------------------------------------------------
# Batches as seeds and a model, and what the oracle says about them


@dataclass
class Batch:
    """A batch with ids: every case's labels are prefixed with its id, except the root."""

    name: str
    config: Config
    case_ids: list[str]
    events: list[dict[str, str | None]]  # columns: case_id, pu, data dims
    hierarchies: dict[str, list[tuple[str, ...]]]  # dim -> rows (all cases, plus a filler row)
    probe: bool = False  # a remainder probe: another model over the seeds of batch `name`

    @property
    def events_seed(self) -> str:
        return f"ev_{self.name}"

    def hierarchy_seed(self, dim: str) -> str:
        return f"h_{self.name}_{HIER_DIMS.index(dim)}"

    @property
    def model(self) -> str:
        return f"{'rem' if self.probe else 'rel'}_{self.name}"

    @property
    def event_columns(self) -> list[str]:
        return [CASE_ID, PU, *self.config.data_dims]

    @property
    def columns(self) -> list[str]:
        out: list[str] = []
        for d in self.config.dims:
            out.extend((d, f"{d}_level"))
        out.append(self.config.count_column)
        if self.config.measure:
            out.append(MEASURE)
        return out

    @property
    def case_column(self) -> int:
        """Index of the case_id label in an output row."""
        return 2 * self.config.dims.index(CASE_ID)

    def oracle(self) -> Release:
        cfg = self.config
        return release_counts(
            self.events,
            PU,
            cfg.dims,
            {d: Hierarchy(rows) for d, rows in self.hierarchies.items()},
            k=cfg.k,
            ladder=cfg.ladder_dicts(),
            measures={MEASURE: count_star} if cfg.measure else {},
            count_column=cfg.count_column,
            count_rows=cfg.count_rows,
            null_policy="suppress" if cfg.null_policy == "suppress" else "root",
            remainder=cfg.remainder,
            dominance=dominance_of(cfg),
        )


def dominance_of(cfg: Config) -> Dominance | None:
    """The oracle's form of the config's dominance rule: each event contributes 1 (value '1')."""
    if cfg.dominance is None:
        return None
    rule, n, percent = cfg.dominance
    if rule == "nk":
        return Dominance("nk", value=lambda _event: 1, n=n, k=percent)
    return Dominance("p_percent", value=lambda _event: 1, p=percent)


def dominance_sql(cfg: Config) -> str:
    if cfg.dominance is None:
        return "none"
    rule, n, percent = cfg.dominance
    if rule == "nk":
        return jinja_literal({"rule": "nk", "value": "1", "n": n, "k": percent})
    return jinja_literal({"rule": "p_percent", "value": "1", "p": percent})


def suppressed_size(batch: Batch, k: int) -> int:
    """Size of what the ladder leaves suppressed in `batch` at threshold k."""
    release = dataclasses.replace(batch, config=dataclasses.replace(batch.config, k=k)).oracle()
    rest = [batch.events[i] for i in release.suppressed]
    return len(rest) if batch.config.count_rows else len({e[PU] for e in rest} - {None})


def remainder_probe(batch: Batch) -> Batch:
    """The same seeds released again with remainder=True and k picked so that the remainder row
    lands on its boundary: exactly k when some k allows it, else the largest k it reaches.

    The remainder row pools the suppressed events of every case of a batch, so a batch gives
    one remainder row at most; probing the boundary makes those few rows count.
    """
    sizes = {k: suppressed_size(batch, k) for k in range(2, 12)}
    exact = [k for k, size in sizes.items() if size == k]
    reached = [k for k, size in sizes.items() if size >= k]
    k = exact[0] if exact else max(reached, default=2)
    config = dataclasses.replace(batch.config, k=k, remainder=True)
    return dataclasses.replace(batch, config=config, probe=True)


def prefixed(case_id: str, label: str | None) -> str | None:
    if label is None or label == ROOT_LABEL:
        return label
    return f"{case_id}:{label}"


def number_batches(raw: Sequence[RawBatch], first_batch: int) -> list[Batch]:
    """Ids for batches `first_batch`, ... and their cases; labels prefixed, hierarchies cut."""
    batches = []
    for offset, rb in enumerate(raw):
        number = first_batch + offset
        cfg = rb.config
        depth_of = cfg.depth_of
        hierarchies: dict[str, list[tuple[str, ...]]] = {d: [] for d in sorted(depth_of)}
        events: list[dict[str, str | None]] = []
        case_ids = []
        for j, case in enumerate(rb.cases):
            case_id = f"c{number * CASES_PER_BATCH + j}"
            case_ids.append(case_id)
            for d, rows in zip(HIER_DIMS, case.hierarchies, strict=True):
                if d in depth_of:
                    for row in rows:
                        hierarchies[d].append(tuple(str(prefixed(case_id, x)) for x in cut(row, depth_of[d])))
            for pu, values in case.events:
                event: dict[str, str | None] = {CASE_ID: case_id, PU: pu}
                for d, value in zip((*HIER_DIMS, FLAT_DIM), values, strict=True):
                    if d in cfg.dims:
                        event[d] = value if d == FLAT_DIM else prefixed(case_id, value)
                events.append(event)
        for d, seed_rows in hierarchies.items():
            # A row no event uses, so that every hierarchy seed has its root even if no case
            # has a hierarchy for this dimension.
            seed_rows.append((*(f"filler:{level}" for level in range(depth_of[d])), ROOT_LABEL))
        batches.append(Batch(f"b{number}", cfg, case_ids, events, hierarchies))
    return batches


def jinja_literal(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{jinja_literal(k)}: {jinja_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(jinja_literal(v) for v in value) + "]"
    raise TypeError(value)


def model_sql(batch: Batch) -> str:
    cfg = batch.config
    hierarchies = ", ".join(f"'{d}': ref('{batch.hierarchy_seed(d)}')" for d in batch.hierarchies)
    measures = {MEASURE: "count(*)"} if cfg.measure else {}
    return f"""{{{{ config(materialized='table') }}}}
{{{{ kanon.release_counts(
    ref('{batch.events_seed}'),
    privacy_unit='{PU}',
    dimensions={jinja_literal(list(cfg.dims))},
    hierarchies={{{hierarchies}}},
    k={cfg.k},
    ladder={jinja_literal(cfg.ladder_dicts())},
    measures={jinja_literal(measures)},
    count_column='{cfg.count_column}',
    count_rows={jinja_literal(cfg.count_rows)},
    null_policy='{cfg.null_policy}',
    remainder={jinja_literal(cfg.remainder)},
    dominance={dominance_sql(cfg)}
) }}}}
"""


def write_csv(path: Path, header: Sequence[str], rows: Iterable[Sequence[str | None]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(header)
        for row in rows:
            # None is written as an empty field, which both seed loaders read as NULL.
            writer.writerow(["" if v is None else v for v in row])


def make_project(path: Path, warehouse: Warehouse) -> DbtProject:
    """An empty dbt project that installs kanon from this checkout (dbt deps run once)."""
    (path / "seeds").mkdir(parents=True)
    (path / "models").mkdir()
    (path / "dbt_project.yml").write_text(
        f"name: {PROJECT}\nversion: '0.1.0'\nconfig-version: 2\nprofile: kanon\n"
        "model-paths: [models]\nseed-paths: [seeds]\n"
        f"seeds:\n  {PROJECT}:\n    +quote_columns: true\n"
    )
    (path / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    project = DbtProject(path, warehouse)
    project.run("deps")
    return project


def write_batches(path: Path, batches: Sequence[Batch]) -> None:
    seeds: list[dict[str, Any]] = []
    for batch in batches:
        (path / "models" / f"{batch.model}.sql").write_text(model_sql(batch), encoding="utf-8")
        if batch.probe:
            continue  # reads the seeds of its batch
        cols = batch.event_columns
        write_csv(
            path / "seeds" / f"{batch.events_seed}.csv",
            cols,
            ([event[c] for c in cols] for event in batch.events),
        )
        seeds.append({"name": batch.events_seed, "config": {"column_types": {c: "varchar" for c in cols}}})
        for d, rows in batch.hierarchies.items():
            levels = [f"level_{i}" for i in range(batch.config.depth_of[d] + 1)]
            write_csv(path / "seeds" / f"{batch.hierarchy_seed(d)}.csv", levels, rows)
            seeds.append(
                {"name": batch.hierarchy_seed(d), "config": {"column_types": {c: "varchar" for c in levels}}}
            )
    # JSON is YAML.
    (path / "seeds" / "_seeds.yml").write_text(json.dumps({"version": 2, "seeds": seeds}, indent=1))


def build(project: DbtProject) -> None:
    project.run("build", "--select", f"package:{PROJECT}", "--threads", "4")


# --------------------------------------------------------------------------------------------
# Reading the marts and comparing


Row = tuple[Any, ...]


def quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def normalize(row: Sequence[Any]) -> Row:
    return tuple(int(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in row)


def read_mart(warehouse: Warehouse, batch: Batch) -> list[Row]:
    cols = ", ".join(quote(c) for c in batch.columns)
    return [normalize(r) for r in warehouse.query(f"select {cols} from {warehouse.relation(batch.model)}")]


def read_seed_events(warehouse: Warehouse, batch: Batch) -> list[Row]:
    cols = ", ".join(quote(c) for c in batch.event_columns)
    return warehouse.query(f"select {cols} from {warehouse.relation(batch.events_seed)}")


def sort_key(row: Row) -> tuple[tuple[int, str], ...]:
    return tuple((0, "") if v is None else (1, repr(v)) for v in row)


def multiset_diff(expected: Iterable[Row], actual: Iterable[Row]) -> tuple[list[Row], list[Row]]:
    e, a = Counter(expected), Counter(actual)
    return sorted((e - a).elements(), key=sort_key), sorted((a - e).elements(), key=sort_key)


def describe_case(batch: Batch, case_id: str) -> str:
    """The case's events and hierarchies, to reproduce a failure by hand."""
    lines = []
    for d, rows in batch.hierarchies.items():
        mine = [r for r in rows if r[0].startswith(f"{case_id}:")]
        lines.append(f"  hierarchy {d}: {mine}")
    lines.append(f"  events ({', '.join(batch.event_columns)}):")
    for event in batch.events:
        if event[CASE_ID] == case_id:
            lines.append(f"    {tuple(event[c] for c in batch.event_columns)}")
    return "\n".join(lines)


def describe_config(batch: Batch) -> str:
    cfg = batch.config
    return (
        f"  model {batch.model}: dims={list(cfg.dims)} depths={cfg.depth_of} k={cfg.k} "
        f"ladder={cfg.ladder_dicts()} null_policy={cfg.null_policy} remainder={cfg.remainder} "
        f"count_rows={cfg.count_rows} count_column={cfg.count_column} measure={cfg.measure} "
        f"dominance={cfg.dominance}"
    )


def recheck_fates(batch: Batch, release: Release) -> list[str]:
    """From the raw events: every event has exactly one fate, every released row is backed by
    at least k people (k events with count_rows) of a single case, mapped to the row's labels."""
    cfg = batch.config
    events = batch.events
    problems: list[str] = []
    if len(release.fates) != len(events):
        return [f"{batch.name}: {len(release.fates)} fates for {len(events)} events"]
    leaf_rows = {d: {row[0]: row for row in rows} for d, rows in batch.hierarchies.items()}

    def label(d: str, value: str | None, level: int) -> tuple[str, int]:
        if d not in leaf_rows:
            return ("*", 1) if value is None else (value, 0)
        row = leaf_rows[d].get(value) if value is not None else None
        if row is None:
            return ROOT_LABEL, cfg.depth_of[d]
        return row[level], level

    released = 0
    for index, row in enumerate(release.rows):
        members = release.events_of(index)
        released += len(members)
        units = {events[i][PU] for i in members if events[i][PU] is not None}
        size = len(members) if cfg.count_rows else len(units)
        where = f"{batch.name} row {row.as_tuple()}"
        if size < cfg.k or size != row.count:
            problems.append(f"{where}: recounted {size} from {len(members)} events, k={cfg.k}")
        rule = dominance_of(cfg)
        if rule is not None and rule.dominated([events[i] for i in members], PU):
            problems.append(f"{where}: dominated under {cfg.dominance}")
        if cfg.measure and row.measures != (len(members),):
            problems.append(f"{where}: {MEASURE} should be {len(members)}")
        assert row.step is not None
        levels = release.steps[row.step]
        for i in members:
            key = tuple(label(d, events[i][d], lv) for d, lv in zip(cfg.dims, levels, strict=True))
            if key != tuple(zip(row.labels, row.levels, strict=True)):
                problems.append(f"{where}: event {i} {events[i]} maps to {key}")
    fates = Counter(f.outcome for f in release.fates)
    if fates["released"] != released or sum(fates.values()) != len(events):
        problems.append(f"{batch.name}: fates {dict(fates)} but {released} events in released rows")
    with_null = {i for i, e in enumerate(events) if any(e[d] is None for d in cfg.data_dims)}
    expected_dropped = with_null if cfg.null_policy == "suppress" else set()
    if not cfg.count_rows:  # an event of nobody (NULL privacy unit) is dropped, measures included
        expected_dropped |= {i for i, e in enumerate(events) if e[PU] is None}
    if set(release.dropped) != expected_dropped:
        problems.append(f"{batch.name}: dropped {release.dropped}, expected {sorted(expected_dropped)}")
    rest = release.suppressed
    rest_size = len(rest) if cfg.count_rows else len({events[i][PU] for i in rest} - {None})
    if cfg.remainder and rest_size >= cfg.k:
        if release.remainder is None or release.remainder.count != rest_size:
            problems.append(f"{batch.name}: remainder should count {rest_size}")
    elif release.remainder is not None:
        problems.append(f"{batch.name}: unexpected remainder row {release.remainder}")
    return problems


@dataclass
class Stats:
    batches: int = 0
    cases: int = 0
    cases_with_events: int = 0
    events: int = 0
    rows: int = 0
    remainder_rows: int = 0
    builds: int = 0
    probes: int = 0
    probe_remainder_at_k: int = 0


def compare_batch(batch: Batch, actual: list[Row], stats: Stats) -> list[str]:
    """Mart rows against the oracle, case by case; returns one message per failing case."""
    release = batch.oracle()
    failures = recheck_fates(batch, release)
    expected = release.output()
    col = batch.case_column
    count_at = 2 * len(batch.config.dims)
    for row in actual:
        if row[count_at] is None or row[count_at] < batch.config.k:
            failures.append(f"{batch.name}: released row below k={batch.config.k}: {row}")
    events_per_case = Counter(e[CASE_ID] for e in batch.events)
    for case_id in [*batch.case_ids, None]:
        exp = [r for r in expected if r[col] == case_id]
        act = [r for r in actual if r[col] == case_id]
        missing, extra = multiset_diff(exp, act)
        if missing or extra:
            failures.append(
                (f"case {case_id}" if case_id else "the remainder row (all cases)")
                + f" of batch {batch.name}\n{describe_config(batch)}\n  columns: {batch.columns}"
                + f"\n  expected (oracle) but not released: {missing}\n  released but not expected: {extra}"
                + (f"\n{describe_case(batch, case_id)}" if case_id else "")
            )
        if case_id is not None and not batch.probe:
            stats.cases += 1
            stats.cases_with_events += events_per_case[case_id] > 0
    remainder_rows = sum(1 for r in actual if r[col] is None)
    if batch.probe:
        stats.probes += 1
        stats.probe_remainder_at_k += any(r[col] is None and r[count_at] == batch.config.k for r in actual)
    else:
        stats.batches += 1
        stats.events += len(batch.events)
        stats.rows += len(actual)
        stats.remainder_rows += remainder_rows
    return failures


def check_seeds_loaded(warehouse: Warehouse, batch: Batch) -> None:
    """The seed holds exactly the events written, so the oracle sees what the warehouse sees."""
    written = [tuple(e[c] for c in batch.event_columns) for e in batch.events]
    missing, extra = multiset_diff(written, read_seed_events(warehouse, batch))
    assert not missing and not extra, (
        f"seed {batch.events_seed} on {warehouse.kind} did not load as written: "
        f"missing {missing[:5]}, extra {extra[:5]}"
    )


def run_batches(
    project: DbtProject, batches: Sequence[Batch], stats: Stats, extra_checks: Callable[[], None] | None = None
) -> dict[str, list[Row]]:
    build(project)
    stats.builds += 1
    marts: dict[str, list[Row]] = {}
    failures: list[str] = []
    for batch in batches:
        if not batch.probe:
            check_seeds_loaded(project.warehouse, batch)
        marts[batch.model] = read_mart(project.warehouse, batch)
        failures.extend(compare_batch(batch, marts[batch.model], stats))
    if extra_checks is not None:
        extra_checks()
    if failures:
        shown = "\n\n".join(failures[:3])
        raise AssertionError(
            f"{len(failures)} mismatch(es) between dbt on {project.warehouse.kind} and the oracle "
            f"(project kept at {project.project_dir}); first ones:\n\n{shown}"
        )
    return marts


EDGE_BATCH_NUMBER = 90


def edge_batch() -> RawBatch:
    """Hand-made cases, built with the first random batches.

    c2160: the same (label, level) released at two steps: the NULL and the missing value are
           the root (*, 1) at step 0 already; the leaves a and b climb to it at step 1.
    c2161: events without a privacy unit count nobody (only p1 is someone).
    c2162: a literal '*' of a dimension without hierarchy is not its NULL ('*' at level 1).
    """
    a = ("a", "North^1", "North^2", ROOT_LABEL)
    b = ("b", "Süd^1", "Süd^2", ROOT_LABEL)
    none: tuple[tuple[str, ...], ...] = ()

    def ev(pu: str | None, a_value: str | None, flat: str | None = "x") -> tuple[str | None, tuple[str | None, ...]]:
        return pu, (a_value, None, None, flat)

    cases = (
        RawCase((( a, b), none, none), (ev("p1", "zz-missing"), ev("p2", None), ev("p3", "a"), ev("p4", "b"))),
        RawCase(((a,), none, none), (ev(None, "a"), ev(None, "a"), ev("p1", "a"))),
        RawCase(((a,), none, none), (ev("p1", "a", "*"), ev("p2", "a", "*"), ev("p3", "a", None), ev("p4", "a", None))),
    )
    config = Config(
        dims=(CASE_ID, HIER_DIMS[0], FLAT_DIM),
        depths=((HIER_DIMS[0], 1),),
        k=2,
        ladder=None,
        null_policy="root",
        remainder=False,
        count_rows=False,
        count_column="people",
        measure=True,
    )
    return RawBatch(config, cases)


def reset_project_files(path: Path) -> None:
    for folder in ("seeds", "models"):
        shutil.rmtree(path / folder)
        (path / folder).mkdir()


# --------------------------------------------------------------------------------------------
# The worked example of the documentation, built alongside the random batches


WORKED_HIERARCHIES = {
    "branch": [("RIVERSIDE", "SOUTH", "*"), ("CENTRAL", "NORTH", "*")],
    "age": [("13-17", "13-24", "*"), ("18-24", "13-24", "*")],
    "title": [("Coping", "Family", "*"), ("Coping2", "Family", "*"), ("Pop", "Fiction", "*")],
}
WORKED_EVENTS = [
    ("p1", "RIVERSIDE", "13-17", "Coping"),
    ("p2", "RIVERSIDE", "18-24", "Coping2"),
    ("p3", "CENTRAL", "13-17", "Pop"),
    ("p4", "CENTRAL", "13-17", "Pop"),
    ("p5", "CENTRAL", "13-17", "Pop"),
    ("p1", "CENTRAL", "13-17", "Pop"),
    ("p1", "CENTRAL", "13-17", "Pop"),
    ("p6", "CENTRAL", "18-24", "Pop"),
    ("p7", "CENTRAL", "18-24", "Pop"),
    ("p8", "CENTRAL", "18-24", "Unknown"),
    ("p9", None, "18-24", "Pop"),
]
WORKED_COLUMNS = ["branch", "branch_level", "age", "age_level", "title", "title_level", "people", "loans"]
WORKED_EXPECTED = [
    ("*", 2, "*", 2, "*", 2, 2, 2),
    ("CENTRAL", 0, "13-17", 0, "Pop", 0, 4, 5),
    ("CENTRAL", 0, "18-24", 0, "Pop", 0, 2, 2),
    ("SOUTH", 1, "13-24", 1, "Family", 1, 2, 2),
]


def write_worked_example(path: Path) -> None:
    columns = ["pu", "branch", "age", "title"]
    levels = ["level_0", "level_1", "level_2"]
    write_csv(path / "seeds" / "worked_events.csv", columns, WORKED_EVENTS)
    seeds = [{"name": "worked_events", "config": {"column_types": dict.fromkeys(columns, "varchar")}}]
    for d, rows in WORKED_HIERARCHIES.items():
        write_csv(path / "seeds" / f"worked_h_{d}.csv", levels, rows)
        seeds.append({"name": f"worked_h_{d}", "config": {"column_types": dict.fromkeys(levels, "varchar")}})
    (path / "seeds" / "_worked.yml").write_text(json.dumps({"version": 2, "seeds": seeds}, indent=1))
    (path / "models" / "worked_release.sql").write_text(
        "{{ config(materialized='k_anonymous', k=2) }}\n"
        "{{ kanon.release_counts(ref('worked_events'), privacy_unit='pu',"
        " dimensions=['branch', 'age', 'title'],"
        " hierarchies={'branch': ref('worked_h_branch'), 'age': ref('worked_h_age'), 'title': ref('worked_h_title')},"
        " k=2, measures={'loans': 'count(*)'}, remainder=true) }}\n"
    )


def check_worked_example(warehouse: Warehouse) -> None:
    cols = ", ".join(quote(c) for c in WORKED_COLUMNS)
    rows = [normalize(r) for r in warehouse.query(f"select {cols} from {warehouse.relation('worked_release')}")]
    missing, extra = multiset_diff(WORKED_EXPECTED, rows)
    assert not missing and not extra, (
        f"worked example on {warehouse.kind}: expected but missing {missing}, unexpected {extra}"
    )


# --------------------------------------------------------------------------------------------
# The tests


def test_edge_batch_releases_a_key_twice() -> None:
    """Keeps the hand-made edge batch honest (oracle only, no dbt)."""
    (edge,) = number_batches([edge_batch()], EDGE_BATCH_NUMBER)
    release = edge.oracle()
    keys = Counter(row[:-2] for row in release.output())
    assert keys[("c2160", 0, "*", 1, "x", 0)] == 2
    assert ("c2161", 0, "c2161:a", 0, "x", 0) not in keys  # one person behind three events
    assert {("c2162", 0, "c2162:a", 0, "*", 0), ("c2162", 0, "c2162:a", 0, "*", 1)} <= set(keys)


def report(stats: Stats, kind: str, seconds: float) -> str:
    return (
        f"[release property] {kind}: {stats.cases} cases compared with the oracle "
        f"({stats.cases_with_events} with events; {stats.events} events, {stats.batches} batches, "
        f"{stats.builds} dbt builds, {stats.rows} released rows of which {stats.remainder_rows} "
        f"remainder rows; plus {stats.probes} remainder probes, {stats.probe_remainder_at_k} of them "
        f"releasing a remainder of exactly k) in {seconds:.1f}s"
    )


def test_release_matches_oracle_on_duckdb(
    make_warehouse: Callable[[str, str], Warehouse], tmp_path_factory: pytest.TempPathFactory
) -> None:
    started = time.monotonic()
    raw = drawn_batches()
    path = tmp_path_factory.mktemp("release_property") / PROJECT
    make_project(path, make_warehouse("duckdb", "prop_deps"))
    stats = Stats()
    for n in range(MAIN_BUILDS):
        first = n * BATCHES_PER_BUILD
        batches = number_batches(raw[first : first + BATCHES_PER_BUILD], first)
        if n == 0:
            batches += number_batches([edge_batch()], EDGE_BATCH_NUMBER)
        batches += [remainder_probe(batch) for batch in batches]
        reset_project_files(path)
        write_batches(path, batches)
        warehouse = make_warehouse("duckdb", f"prop{n}")
        checks = None
        if n == 0:
            write_worked_example(path)
            checks = functools.partial(check_worked_example, warehouse)
        run_batches(DbtProject(path, warehouse), batches, stats, checks)
    message = report(stats, "duckdb", time.monotonic() - started)
    print(message)
    assert stats.cases >= MIN_CASES_MAIN, message


@pytest.mark.parametrize("warehouse_kind", ["postgres"], indirect=True)
def test_postgres_releases_the_duckdb_rows(
    warehouse_kind: str,
    make_warehouse: Callable[[str, str], Warehouse],
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Same input, same output on every warehouse: one smaller set of batches on both."""
    started = time.monotonic()
    first = MAIN_BUILDS * BATCHES_PER_BUILD  # batches the DuckDB test does not build
    raw = drawn_batches()[first:]
    path = tmp_path_factory.mktemp("release_property_cross") / PROJECT
    duck = make_warehouse("duckdb", "propx")
    other = make_warehouse(warehouse_kind, "propx")
    make_project(path, duck)
    batches = number_batches(raw, first)
    batches += [remainder_probe(batch) for batch in batches]
    write_batches(path, batches)
    write_worked_example(path)
    stats = {kind: Stats() for kind in ("duckdb", warehouse_kind)}
    marts = {
        wh.kind: run_batches(
            DbtProject(path, wh), batches, stats[wh.kind], functools.partial(check_worked_example, wh)
        )
        for wh in (duck, other)
    }
    for batch in batches:
        ours, theirs = marts["duckdb"][batch.model], marts[warehouse_kind][batch.model]
        missing, extra = multiset_diff(ours, theirs)
        assert not missing and not extra, (
            f"{batch.model}: {warehouse_kind} and duckdb differ: only on duckdb {missing}, only on "
            f"{warehouse_kind} {extra}"
        )
    message = report(stats[warehouse_kind], f"{warehouse_kind} (= duckdb rows)", time.monotonic() - started)
    print(message)
    assert stats[warehouse_kind].cases >= MIN_CASES_CROSS, message
