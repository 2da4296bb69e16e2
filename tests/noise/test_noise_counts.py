"""Noise after k: count releases perturbed by the Cell Key Method (noise={'mode': 'cell_key'}).

A host project installs kanon through packages.yml and releases people by branch and age band
(k = 3, one ladder step, a remainder row) with a perturbation table seed and a noise key that
reaches each warehouse as a user gives it (the DuckDB plugin reads the environment, Postgres a
setting from PGOPTIONS). Labels and ids are hostile: quotes, non-ASCII, spaces, NULL people.

What is checked, each against something the release did not compute:
- every published count is the oracle's (tests/oracles/counts.py decides on true counts) plus
  the ptable's v for the cell key of the row's people (kanon_tools.noise, plain Python HMAC);
  rows perturbed to 0 are not published, and the trail records them;
- the k rule is decided on true counts: the rows are exactly the exact release's rows;
- the same people get the same perturbation: a re-run, another row order, another
  materialization and another report over the same people publish the same numbers;
- the key is in no file dbt writes, nor in the DuckDB file;
- a bad ptable, a missing or short key, measures, count_rows, mode 'dp': refused, nothing
  published, the previous release stays.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.noise import Ptable, cell_key
from oracles.counts import Hierarchy, Release, release_counts
from oracles.ptables import ptable_csv, simple_ptable
from support import ROOT
from support.projects import KeyedProject, built_keyed_host, write_csv
from support.warehouses import mart

pytestmark = pytest.mark.dbt

KEY = "5f0c" * 16  # a test key: 32 bytes as hex
K = 3
BRANCHES = ("CENTRAL", "O'Hara", 'Zürich "Nord"', "east side")
BANDS = ("13-17", "18-24", "25-44", "45-64")
AGE_HIERARCHY = (("13-17", "13-24", "*"), ("18-24", "13-24", "*"), ("25-44", "25-64", "*"), ("45-64", "25-64", "*"))
KEY_SPACE = 2**32  # whole numbers in [0, KEY_SPACE): record and cell keys

RELEASE = """{{{{ config(materialized={materialized!r}, k={k}) }}}}
{{{{ kanon.release_counts({source}, privacy_unit='Patron Id', dimensions={dimensions},
    hierarchies={{'age_band': ref('noise_age')}}, ladder=[{{'age_band': 1}}], remainder=true, k={k},
    measures=var('measures', none), count_rows=var('count_rows', false),
    noise={{'mode': var('noise_mode', 'cell_key'), 'ptable': ref(var('ptable', 'noise_ptable')),
           'key_env': 'KANON_NOISE_KEY'}}) }}}}
"""
EXACT = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(ref('noise_events'), privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('noise_age')}, ladder=[{'age_band': 1}], remainder=true) }}
"""
# the same events in another order (a view sorted backwards by a hash of the row)
SHUFFLED = """select * from {{ ref('noise_events') }}
order by md5(coalesce("Patron Id", '') || branch || age_band) desc"""


def events() -> list[dict[str, str | None]]:
    """Dense cells, thin ones that climb to 13-24 / 25-64, a few left over; odd ids and NULL people."""
    out: list[dict[str, str | None]] = []
    odd_ids = ["O'Brien 7", "zoë-12", " 42 ", "007", "7", "a,b", 'q"uote']
    person = 0
    for b, branch in enumerate(BRANCHES):
        for a, band in enumerate(BANDS):
            size = (3 + (b * 5 + a * 3) % 9) if (b + a) % 3 else (1 + (b + a) % 2)
            for _ in range(size):
                pid = odd_ids[person % len(odd_ids)] + f"#{person}" if person % 5 == 0 else f"p{person}"
                person += 1
                for _ in range(1 + person % 3):  # people with several events
                    out.append({"Patron Id": pid, "branch": branch, "age_band": band})
    for n in range(16):  # cells of exactly k people: the ptable turns a quarter of them into 0
        out += [{"Patron Id": f"s{n}-{m}", "branch": f"kiosk {n:02d}", "age_band": "25-44"} for m in range(K)]
    out.append({"Patron Id": None, "branch": "CENTRAL", "age_band": "13-17"})  # nobody: left out
    out.append({"Patron Id": "lonely", "branch": "far away", "age_band": "45-64"})
    return out


def bad_ptables(good: str) -> dict[str, str]:
    """Mutations of the good ptable, each breaking one rule the release must check."""
    header, *lines = good.strip().split("\n")
    rows = [line.split(",") for line in lines]

    def emit(changed: list[list[str]]) -> str:
        return "\n".join([header, *(",".join(r) for r in changed)]) + "\n"

    gap = [r[:] for r in rows]
    at = next(n for n, r in enumerate(gap) if r[0] == "5" and r[4] != "0")
    gap[at][4] = str(int(gap[at][4]) + 1)  # a hole before this interval
    small = [r[:] for r in rows]
    at = next(n for n, r in enumerate(small) if r[0] == "4" and r[1] == "4")
    small[at][1], small[at][2] = "2", "-2"  # 4 -> 2: a value in 1..k-1
    biased = [r[:] for r in rows]
    at = next(n for n, r in enumerate(biased) if r[0] == "6" and r[1] == "6")
    biased[at][1], biased[at][2] = "7", "1"  # staying becomes +1: mean > 0
    zero = [r[:] for r in rows if r[0] != "0"] + [["0", "0", "0", "0.5", "0", "2147483648"],
                                                    ["0", "4", "4", "0.5", "2147483648", str(KEY_SPACE)]]
    last = max(int(r[0]) for r in rows)
    half = str(KEY_SPACE // 2)
    top = str(last)
    to_zero = [r[:] for r in rows if r[0] != top] + [[top, "0", str(-last), "0.5", "0", half],
                                                     [top, str(2 * last), top, "0.5", half, str(KEY_SPACE)]]
    return {"noise_ptable_gap": emit(gap), "noise_ptable_small": emit(small), "noise_ptable_biased": emit(biased),
            "noise_ptable_zero": emit(zero), "noise_ptable_last_to_zero": emit(to_zero),
            "noise_ptable_columns": "i,j,p,key_from,key_to\n0,0,1.0,0,4294967296\n"}


def write_host(path: Path) -> None:
    for folder in ("models", "seeds"):
        (path / folder).mkdir(parents=True)
    good = ptable_csv(simple_ptable(js=K - 1, max_perturbation=3, imax=8))
    ptables = {"noise_ptable": good, **bad_ptables(good)}
    types = "{i: bigint, j: bigint, v: bigint, key_from: bigint, key_to: bigint}"
    (path / "dbt_project.yml").write_text(
        "name: noise_host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  noise_host:\n    noise_age:\n"
        "      +column_types: {level_0: varchar, level_1: varchar, level_2: varchar}\n"
        + "".join(f"    {name}:\n      +column_types: {types}\n" for name in ptables if name != "noise_ptable_columns")
        + "    noise_ptable_columns:\n"
        "      +column_types: {i: bigint, j: bigint, p: float8, key_from: bigint, key_to: bigint}\n")
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    write_csv(path / "seeds" / "noise_events.csv", events())
    (path / "seeds" / "noise_age.csv").write_text(
        "level_0,level_1,level_2\n" + "".join(",".join(row) + "\n" for row in AGE_HIERARCHY))
    for name, text in ptables.items():
        (path / "seeds" / f"{name}.csv").write_text(text)
    dims = "['branch', 'age_band']"
    models = {
        "noisy": RELEASE.format(materialized="k_anonymous", k=K, source="ref('noise_events')", dimensions=dims),
        "noisy_shuffled": RELEASE.format(materialized="k_anonymous", k=K, source="ref('noise_events_shuffled')",
                                         dimensions=dims),
        "noisy_table": RELEASE.format(materialized="table", k=K, source="ref('noise_events')", dimensions=dims),
        # another report over the same people: dimensions in the other order
        "noisy_swapped": RELEASE.format(materialized="k_anonymous", k=K, source="ref('noise_events')",
                                        dimensions="['age_band', 'branch']"),
        "exact": EXACT,
        "noise_events_shuffled": "{{ config(materialized='view') }}\n" + SHUFFLED,
    }
    for name, sql in models.items():
        (path / "models" / f"{name}.sql").write_text(sql)


@pytest.fixture(scope="module")
def released(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> KeyedProject:
    return built_keyed_host(tmp_path_factory.mktemp("noise") / "noise_host", write_host,
                            make_warehouse(warehouse_kind, "noise"), {"KANON_NOISE_KEY": KEY})


def oracle() -> Release:
    hierarchy = Hierarchy(AGE_HIERARCHY)
    return release_counts(events(), "Patron Id", ["branch", "age_band"], {"age_band": hierarchy}, k=K,
                          ladder=[{"age_band": 1}], remainder=True)


def expected_noisy(release: Release) -> tuple[list[tuple[Any, ...]], int]:
    """The oracle's rows, each count perturbed by the ptable for its people's cell key, and how
    many were perturbed to 0 (left out)."""
    table = ptable_rows()
    rows, zeros = [], 0
    people = {n: {events()[i]["Patron Id"] for i in release.events_of(n)} for n in range(len(release.rows))}
    released = list(enumerate(release.rows)) + ([(-1, release.remainder)] if release.remainder else [])
    for n, row in released:
        members = people[n] if n >= 0 else {events()[i]["Patron Id"] for i in release.suppressed} - {None}
        published = table.published(row.count, cell_key(KEY, members))
        if published == 0:
            zeros += 1
            continue
        rows.append((*row.as_tuple()[:-1], published))
    return sorted(rows, key=repr), zeros


def ptable_rows() -> Ptable:
    text = ptable_csv(simple_ptable(js=K - 1, max_perturbation=3, imax=8))
    return Ptable.from_records(csv.DictReader(text.splitlines()))


def as_text(rows: list[tuple[Any, ...]]) -> list[tuple[str | None, ...]]:
    return sorted((tuple(None if v is None else str(v) for v in row) for row in rows), key=repr)


def test_published_counts_are_the_true_counts_perturbed_by_their_cell_keys(released: KeyedProject) -> None:
    wh = released.warehouse
    expected, zeros = expected_noisy(oracle())
    assert as_text(mart(wh, "noisy")) == as_text(expected)
    exact = {row[:-1]: row[-1] for row in mart(wh, "exact")}
    moved = [row for row in mart(wh, "noisy") if exact[row[:-1]] != row[-1]]
    assert moved, "the fixture must have counts the ptable moves"
    # nothing in 1..k-1, and a row perturbed to 0 is left out but recorded on the trail
    assert all(row[-1] >= K for row in mart(wh, "noisy"))
    assert zeros >= 1, "the fixture must have a count the ptable turns into 0"
    trail = wh.query(
        f"select count(*) from {wh.schema}_kanon_audit.kanon_audit_groups "
        "where report_unique_id = 'model.noise_host.noisy' and decision in ('PASS', 'GENERALIZE', 'REMAINDER') "
        "and people_shown = 0 and people >= 3")
    assert trail[0][0] == zeros


def test_the_trail_keeps_each_row_s_true_count_and_cell_key_for_replay(released: KeyedProject) -> None:
    # golden vectors: the cell key each warehouse computed is plain Python's HMAC arithmetic, and
    # the published count follows from it, the true count and the ptable
    wh = released.warehouse
    release, table = oracle(), ptable_rows()
    expected = {}
    for n, row in enumerate(release.rows):
        people = {events()[i]["Patron Id"] for i in release.events_of(n)}
        labels = json.dumps(dict(zip(["branch", "age_band"], row.labels, strict=True)), ensure_ascii=False)
        expected[labels] = (row.count, cell_key(KEY, people))
    trail = wh.query(
        f"select labels, people, people_shown, cell_key from {wh.schema}_kanon_audit.kanon_audit_groups "
        "where report_unique_id = 'model.noise_host.noisy' and decision in ('PASS', 'GENERALIZE') "
        "and invocation_id = (select min(invocation_id) from "
        f"{wh.schema}_kanon_audit.kanon_audit_releases where report_unique_id = 'model.noise_host.noisy' "
        "and released_at = (select min(released_at) from "
        f"{wh.schema}_kanon_audit.kanon_audit_releases where report_unique_id = 'model.noise_host.noisy'))")
    got = {json.dumps(json.loads(labels), ensure_ascii=False): (people, key) for labels, people, _, key in trail}
    assert got == expected
    assert all(shown == table.published(people, key) for _, people, shown, key in trail)


def test_k_is_decided_on_true_counts(released: KeyedProject) -> None:
    # the same groups as the exact release, less those perturbed to 0: noise never rescues a
    # thin cell (a true count of 1 or 2 perturbed upwards) nor hides one at k
    wh = released.warehouse
    exact = {row[:-1] for row in mart(wh, "exact")}
    noisy = {row[:-1] for row in mart(wh, "noisy")}
    assert noisy < exact
    assert len(exact - noisy) == expected_noisy(oracle())[1]


def test_the_same_people_get_the_same_perturbation(released: KeyedProject) -> None:
    wh = released.warehouse
    first = mart(wh, "noisy")
    assert mart(wh, "noisy_shuffled") == first  # another row order
    assert mart(wh, "noisy_table") == first  # one statement, no trail
    swapped = {(r[2], r[3], r[0], r[1]): r[4] for r in mart(wh, "noisy_swapped")}
    assert {r[:-1]: r[-1] for r in first} == swapped  # another report over the same people
    released.run("run", "-s", "noisy")  # again: nothing changes
    assert mart(wh, "noisy") == first
    # ... and the trail says so, over what readers see: every published row compared, none
    # changed, none new or gone (a row perturbed to 0 is in neither release, so in no count)
    [latest] = wh.query(
        f"select rows_compared, rows_changed_small, rows_appeared, rows_disappeared, rows_released "
        f"from {wh.schema}_kanon_audit.kanon_audit_releases where report_unique_id = 'model.noise_host.noisy' "
        "and status = 'RELEASED' order by released_at desc limit 1")
    assert latest == (len(first), 0, 0, 0, len(first))


def test_the_trail_records_the_mode_the_ptable_and_the_key_fingerprint(released: KeyedProject) -> None:
    wh = released.warehouse
    [(plan, fingerprint)] = wh.query(
        f"select release_plan, key_fingerprint from {wh.schema}_kanon_audit.kanon_audit_releases "
        "where report_unique_id = 'model.noise_host.noisy' order by released_at limit 1")
    noise = json.loads(plan)["noise"]
    assert noise["mode"] == "cell_key" and noise["key_env"] == "KANON_NOISE_KEY" and noise["imax"] == 8
    # what a reader's margin of error rests on: the variance of v for counts >= imax
    top = ptable_rows().rows(8)
    assert noise["variance"] == round(sum((r.key_to - r.key_from) * r.v * r.v for r in top) / KEY_SPACE, 6) > 0
    assert noise["distribution"] == [[r.v, round((r.key_to - r.key_from) / KEY_SPACE, 6)] for r in top]
    assert len(noise["ptable"]) == 32 and fingerprint and len(fingerprint) == 16 and fingerprint not in KEY


def key_forms() -> dict[str, bytes]:
    raw = bytes.fromhex(KEY)
    return {"key hex": KEY.encode(), "key hex upper": KEY.upper().encode(), "key bytes": raw}


def files(places: list[Path]) -> Iterator[Path]:
    for place in places:
        if place.is_file():
            yield place
        elif place.is_dir():
            yield from (p for p in place.rglob("*") if p.is_file())


def test_the_key_is_in_no_file_dbt_writes(released: KeyedProject) -> None:
    found = [f"{what} in {path}" for path in files(released.places()) for what, form in key_forms().items()
             if form in path.read_bytes()]
    assert found == []


REFUSALS = {
    "noise_ptable_gap": "do not tile",
    "noise_ptable_small": "publish a value in 1..2",
    "noise_ptable_biased": "biased",
    "noise_ptable_zero": "zeros must stay zero",
    "noise_ptable_last_to_zero": "stands for every larger count",
    "noise_ptable_columns": "has no column v",
}


@pytest.mark.parametrize("ptable", sorted(REFUSALS))
def test_a_bad_ptable_is_refused_and_the_previous_release_stays(released: KeyedProject, ptable: str) -> None:
    before = mart(released.warehouse, "noisy")
    result = released.run("run", "-s", "noisy", "--vars", json.dumps({"ptable": ptable}), expect_ok=False)
    assert REFUSALS[ptable] in result.output and "Nothing was released" in result.output
    assert mart(released.warehouse, "noisy") == before


@pytest.mark.parametrize(("variables", "keys", "message"), [
    ({}, {"KANON_NOISE_KEY": None}, "no pseudonym key"),
    ({}, {"KANON_NOISE_KEY": "ab" * 8}, "shorter than 32 bytes"),
    ({"measures": {"events": "count(*)"}}, {"KANON_NOISE_KEY": KEY}, "neither count_rows=true nor measures"),
    ({"count_rows": True}, {"KANON_NOISE_KEY": KEY}, "neither count_rows=true nor measures"),
    ({"noise_mode": "dp"}, {"KANON_NOISE_KEY": KEY}, "noise with mode 'dp' takes"),
    ({"noise_mode": "loud"}, {"KANON_NOISE_KEY": KEY}, "noise's mode"),
])
def test_bad_noise_input_is_refused_and_nothing_is_published(
    released: KeyedProject, variables: dict[str, Any], keys: dict[str, str | None], message: str,
) -> None:
    before = mart(released.warehouse, "noisy")
    result = released.with_keys(keys).run("run", "-s", "noisy", "--vars", json.dumps(variables), expect_ok=False)
    assert message in result.output
    assert mart(released.warehouse, "noisy") == before


def test_readers_find_the_standard_deviation_on_the_mart(released: KeyedProject) -> None:
    # the trail is private: what a reader needs for margins of error is noted on the mart itself
    wh = released.warehouse
    variance = round(sum((r.key_to - r.key_from) * r.v * r.v for r in ptable_rows().rows(8)) / KEY_SPACE, 6)
    note = wh.comment("noisy") or ""
    assert note.startswith("kanon: counts perturbed by the Cell Key Method")
    assert f"standard deviation of a published count {round(variance ** 0.5, 2)} " in note
    assert "kanon:" not in (wh.comment("exact") or "")
