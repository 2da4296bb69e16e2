"""Noise after k for tables with totals: kanon.release_table(..., noise={'mode': 'cell_key'}).

A host project installs kanon through packages.yml and releases people by branch and age band
(k = 3; the age band has a hierarchy, so the table has subtotals as well as totals) with a
perturbation table seed and a noise key as a user gives it (the DuckDB plugin reads the
environment, Postgres a setting from PGOPTIONS). Labels and ids are hostile: quotes, non-ASCII,
spaces, NULL people; some people are in two cells, so the true totals are below their parts' sum.

What is checked, each against something the release did not compute:
- the mart is a plain-Python oracle's table cell for cell: every cell, subtotal and total
  counted in Python, the primaries (0 < count < k) hidden, every other cell published as its
  count plus the ptable's v for its own people's cell key (kanon_tools.noise), a cell perturbed
  to 0 published as 0; no secondary (the exact table of the same events has some); every
  total flagged non-additive;
- the trail keeps each published cell's true count, shown count and cell key, the primaries'
  cell keys, the plan's noise and the key's fingerprint;
- a re-run and another row order publish the same numbers; the key is in no file dbt writes;
  the attacker's LP audit (`attack`) says it does not apply;
- a ptable that could publish 1..k-1 and a missing key are refused and the previous release
  stays; mode 'dp', count_rows and protection are refused; a long form whose config says it is
  exact, or whose published values are not its ptable's, is refused by the gate.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.noise import Ptable, cell_key
from oracles.ptables import ptable_csv, simple_ptable
from support import ROOT
from support.commands import kanon_tools_cli
from support.projects import KeyedProject, built_keyed_host, write_csv
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

KEY = "3a9d" * 16  # a test key: 32 bytes as hex
K = 3
DENSE = ("CENTRAL", "O'Hara", 'Zürich "Nord"', "east side", "kiosk")
STALLS = tuple(f"stall {n}" for n in range(6))  # k people each, in one band: a quarter of them perturbed to 0
BRANCHES = DENSE + STALLS
BANDS = ("13-17", "18-24", "25-44", "45-64")
PARENT = {"13-17": "13-24", "18-24": "13-24", "25-44": "25-64", "45-64": "25-64"}
# people per (branch, band) before the people counted twice: primaries (1, 2), cells of exactly k
# (a quarter of which the ptable turns into 0), empty cells (0), dense ones
SIZES = (3, 1, 7, 3, 2, 12, 3, 0, 5, 3, 9, 4, 3, 2, 6, 3, 0, 3, 0, 3)
TOTAL = "Total"
AUDIT = "_kanon_audit"
PTABLE = ptable_csv(simple_ptable(js=K - 1, max_perturbation=3, imax=8))  # no value in 1..k-1, D = 3, imax = 8

RELEASE = """{{{{ config(materialized='k_anonymous', k={k}{extra}) }}}}
{{{{ kanon.release_table({source}, privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={{'age_band': ref('nt_age')}}, count_rows=var('count_rows', false), protection=var('protection', none)
    {noise}) }}}}
"""
NOISE = (", noise={'mode': var('noise_mode', 'cell_key'), 'ptable': ref(var('ptable', 'nt_ptable')),"
         " 'key_env': 'KANON_NOISE_KEY'}")
# the same events in another order (a view sorted backwards by a hash of the row)
SHUFFLED = """select * from {{ ref('nt_events') }}
order by md5(coalesce("Patron Id", '') || branch || age_band) desc"""
# tampered long forms, for the gate: a noisy release under a config that says it is exact, and
# one that publishes another ptable's values while recording nt_ptable's
LYING_CONFIG = """{{ kanon.release_table(ref('nt_events'), privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('nt_age')}""" + NOISE + """) }}
{{ config(materialized='k_anonymous', k=3, enabled=var('tampered', false),
    kanon_table={'hide_zeros': false, 'protection': none, 'linked': false, 'noisy': false}) }}
"""
OTHER_PTABLE = """{{ config(materialized='k_anonymous', k=3, kanon_release_kind='table', enabled=var('tampered', false),
    kanon_table={'hide_zeros': false, 'protection': none, 'linked': false, 'noisy': true}) }}
{{ other_ptable_release(ref('nt_events'), ref('nt_age'), ref('nt_ptable_other'), ref('nt_ptable')) }}
"""
OTHER_PTABLE_MACRO = """{% macro other_ptable_release(events, age, used, claimed) %}
  {%- if not execute -%}{{ return('select 1 as _kanon_parse_placeholder') }}{%- endif -%}
  {%- set plan = kanon._table_plan('other_ptable_release', events, 'Patron Id', ['branch', 'age_band'],
      {'age_band': age}, none, none, 3, 'people', false, false, 'Total', 'ignore',
      noise={'mode': 'cell_key', 'ptable': used, 'key_env': 'KANON_NOISE_KEY'}) -%}
  {%- do plan.update({'on_small_change': 'report'}) -%}
  {%- set search = kanon._table_search(plan) -%}
  {%- set claimed_noise = dict(plan.noise, ptable=claimed, fingerprint=kanon._noise_ptable_fingerprint(claimed)) -%}
  {{ return(kanon._table_long_form(plan, search, kanon._table_policy(dict(plan, noise=claimed_noise), search))) }}
{% endmacro %}
"""


def events() -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    odd_ids = ["O'Brien 7", "zoë-12", " 42 ", "007", "a,b", 'q"uote']
    person = 0
    for (b, branch), (a, band) in product(enumerate(DENSE), enumerate(BANDS)):
        for _ in range(SIZES[b * len(BANDS) + a]):
            pid = odd_ids[person % len(odd_ids)] + f"#{person}" if person % 5 == 0 else f"p{person}"
            person += 1
            out += [{"Patron Id": pid, "branch": branch, "age_band": band}] * (1 + person % 2)
            if person % 4 == 0 and SIZES[b * len(BANDS) + (a + 1) % len(BANDS)]:  # in a second cell too
                out.append({"Patron Id": pid, "branch": branch, "age_band": BANDS[(a + 1) % len(BANDS)]})
    for stall in STALLS:
        out += [{"Patron Id": f"{stall}/{m}", "branch": stall, "age_band": "25-44"} for m in range(K)]
    out.append({"Patron Id": None, "branch": "CENTRAL", "age_band": "13-17"})  # nobody: left out
    return out


def ptable() -> Ptable:
    return Ptable.from_records(csv.DictReader(PTABLE.splitlines()))


Cell = tuple[str, int, str, int]  # branch label, level, age band label, level


def nodes() -> Iterator[tuple[Cell, Any]]:
    """Every cell of the table as the mart labels it, with a test of whether an event is in it."""
    branches = [(b, 0, lambda e, b=b: e["branch"] == b) for b in BRANCHES] + [(TOTAL, 1, lambda e: True)]
    bands = ([(a, 0, lambda e, a=a: e["age_band"] == a) for a in BANDS]
             + [(p, 1, lambda e, p=p: PARENT[e["age_band"]] == p) for p in sorted(set(PARENT.values()))]
             + [(TOTAL, 2, lambda e: True)])
    for (b, bl, in_b), (a, al, in_a) in product(branches, bands):
        yield (b, bl, a, al), (lambda e, in_b=in_b, in_a=in_a: in_b(e) and in_a(e))


def oracle() -> dict[Cell, tuple[Any, ...]]:
    """The noisy table in plain Python: per cell (people or None, status, display, additive along
    branch, along age band) and the true count and cell key."""
    people_of = {cell: {e["Patron Id"] for e in events() if e["Patron Id"] is not None and inside(e)}
                 for cell, inside in nodes()}
    table, out = ptable(), {}
    for cell, people in people_of.items():
        n, key = len(people), cell_key(KEY, people)
        shown = None if 0 < n < K else table.published(n, key)
        status = "primary" if shown is None else "published"
        additive = (None if cell[1] == 0 else False, None if cell[3] == 0 else False)
        out[cell] = (shown, status, f"<{K}" if shown is None else str(shown), *additive, n, key)
    return out


def write_host(path: Path) -> None:
    for folder in ("models", "seeds", "macros"):
        (path / folder).mkdir(parents=True)
    ptables = {"nt_ptable": PTABLE,
               "nt_ptable_other": ptable_csv(simple_ptable(js=K - 1, max_perturbation=4, imax=8)),
               "nt_ptable_small": ptable_csv(simple_ptable(js=K - 2, max_perturbation=3, imax=8))}  # js < k - 1
    types = "{i: bigint, j: bigint, v: bigint, key_from: bigint, key_to: bigint}"
    (path / "dbt_project.yml").write_text(
        "name: noise_table_host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  noise_table_host:\n    nt_age:\n"
        "      +column_types: {level_0: varchar, level_1: varchar, level_2: varchar}\n"
        + "".join(f"    {name}:\n      +column_types: {types}\n" for name in ptables))
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    write_csv(path / "seeds" / "nt_events.csv", events())
    (path / "seeds" / "nt_age.csv").write_text(
        "level_0,level_1,level_2\n" + "".join(f"{band},{PARENT[band]},*\n" for band in BANDS))
    for name, text in ptables.items():
        (path / "seeds" / f"{name}.csv").write_text(text)
    bad = ", enabled=var('bad', false)"
    models = {
        "noisy_table": RELEASE.format(k=K, extra="", source="ref('nt_events')", noise=NOISE),
        "noisy_table_shuffled": RELEASE.format(k=K, extra="", source="ref('nt_events_shuffled')", noise=NOISE),
        "exact_table": RELEASE.format(k=K, extra="", source="ref('nt_events')", noise=""),
        "nt_events_shuffled": "{{ config(materialized='view') }}\n" + SHUFFLED,
        "noisy_lying_config": LYING_CONFIG,
        "noisy_other_ptable": OTHER_PTABLE,
        "noisy_dp": RELEASE.format(k=K, extra=bad, source="ref('nt_events')",
                                   noise=", noise={'mode': 'dp', 'ptable': ref('nt_ptable')}"),
        "noisy_protected": RELEASE.format(k=K, extra=bad, source="ref('nt_events')", noise=NOISE).replace(
            "var('protection', none)", "1"),
    }
    for name, sql in models.items():
        (path / "models" / f"{name}.sql").write_text(sql)
    (path / "macros" / "other_ptable_release.sql").write_text(OTHER_PTABLE_MACRO)


@pytest.fixture(scope="module")
def released(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> KeyedProject:
    return built_keyed_host(tmp_path_factory.mktemp("noise_table") / "noise_table_host", write_host,
                            make_warehouse(warehouse_kind, "noise_table"), {"KANON_NOISE_KEY": KEY})


def mart(wh: Warehouse, name: str) -> dict[Cell, tuple[Any, ...]]:
    """The mart by cell: (people, status, display, branch_additive, age_band_additive)."""
    rows = wh.query(f"select * from {wh.relation(name)}")
    return {(r[0], int(r[1]), r[2], int(r[3])): (None if r[5] is None else int(r[5]), *r[6:10]) for r in rows}


def trail(wh: Warehouse, sql: str) -> list[tuple[Any, ...]]:
    return wh.query(sql.replace("{audit}", f"{wh.schema}{AUDIT}"))


def test_the_mart_is_the_true_table_perturbed_cell_by_cell(released: KeyedProject) -> None:
    wh = released.warehouse
    expected = {cell: row[:5] for cell, row in oracle().items()}
    got = mart(wh, "noisy_table")
    assert set(got) == set(expected)
    assert {cell: got[cell] for cell in sorted(got)} == {cell: expected[cell] for cell in sorted(got)}
    truth = {cell: row[5] for cell, row in oracle().items()}
    # the fixture has what the test is about: primaries, zeros shown, counts the ptable moves, a
    # cell of at least k perturbed to 0 (published as 0), and subtotals and totals moved
    statuses = [row[1] for row in got.values()]
    assert statuses.count("primary") >= 3 and "secondary" not in statuses
    assert any(truth[c] >= K and got[c][0] == 0 for c in got), "a cell of k or more perturbed to 0"
    assert any(truth[c] == 0 and got[c][0] == 0 for c in got), "an empty cell, shown as 0"
    assert sum(1 for c in got if (c[1] or c[3]) and got[c][0] is not None and got[c][0] != truth[c]) >= 3
    # nothing in 1..k-1 is shown; the exact table of the same events needs secondaries, this one none
    assert all(row[0] is None or row[0] == 0 or row[0] >= K for row in got.values())
    exact = mart(wh, "exact_table")
    assert [row[1] for row in exact.values()].count("secondary") >= 1
    primaries = {c for c, row in got.items() if row[1] == "primary"}
    assert {c for c, row in exact.items() if row[1] == "primary"} == primaries


def test_every_total_says_it_is_not_the_sum_of_its_parts(released: KeyedProject) -> None:
    got = mart(released.warehouse, "noisy_table")
    for (_, branch_level, _, age_level), row in got.items():
        assert row[3] is (None if branch_level == 0 else False)
        assert row[4] is (None if age_level == 0 else False)
    # and a published total indeed differs from the sum of its published parts somewhere
    parts: dict[tuple[str, int], list[int]] = {}
    for (_, bl, a, al), row in got.items():
        if bl == 0 and row[0] is not None:
            parts.setdefault((a, al), []).append(row[0])
    assert any(got[(TOTAL, 1, a, al)][0] not in (None, sum(values)) for (a, al), values in parts.items()
               if len(values) == len(BRANCHES))


def test_the_trail_keeps_true_counts_and_cell_keys_and_the_plan_its_noise(released: KeyedProject) -> None:
    wh = released.warehouse
    rows = trail(wh, "select labels, levels, decision, people, people_shown, cell_key from {audit}.kanon_audit_groups "
                     "where report_unique_id = 'model.noise_table_host.noisy_table'")
    expected = oracle()
    got = {}
    for labels, levels, decision, people, shown, key in rows:
        label, level = json.loads(labels), json.loads(levels)
        got[(label["branch"], level["branch"], label["age_band"], level["age_band"])] = (decision, people, shown, key)
    assert len(got) == len(rows) == len(expected)
    for cell, (shown, status, *_, n, key) in expected.items():
        assert got[cell] == (("PASS", n, shown, key) if status == "published" else ("PRIMARY", None, None, key)), cell
    [(plan, fingerprint)] = trail(wh, "select release_plan, key_fingerprint from {audit}.kanon_audit_releases "
                                      "where report_unique_id = 'model.noise_table_host.noisy_table' "
                                      "order by released_at limit 1")
    plan = json.loads(plan)
    assert plan["noise"]["mode"] == "cell_key" and plan["noise"]["key_env"] == "KANON_NOISE_KEY"
    assert plan["noise"]["imax"] == 8 and len(plan["noise"]["ptable"]) == 32
    assert plan["noise"]["relation"].endswith('nt_ptable"')
    totals = sum(1 for (_, bl, _, al) in expected if bl or al)
    assert (plan["secondary"], plan["non_additive_totals"], plan["rounds"]) == (0, totals, 0)
    assert fingerprint and len(fingerprint) == 16 and fingerprint not in KEY


def test_the_same_people_get_the_same_noise(released: KeyedProject) -> None:
    wh = released.warehouse
    first = mart(wh, "noisy_table")
    assert mart(wh, "noisy_table_shuffled") == first
    released.run("run", "-s", "noisy_table")
    assert mart(wh, "noisy_table") == first
    [latest] = trail(wh, "select rows_compared, rows_changed_small, rows_appeared, rows_disappeared "
                         "from {audit}.kanon_audit_releases where report = 'noisy_table' and status = 'RELEASED' "
                         "order by released_at desc limit 1")
    published = sum(1 for row in first.values() if row[1] == "published")
    assert latest == (published, 0, 0, 0)


def test_the_lp_audit_says_it_does_not_apply(released: KeyedProject) -> None:
    # `attack` takes published values as exact and totals as bounded by their parts: not so here
    run = kanon_tools_cli(["attack", "--project-dir", str(released.project_dir), "--report", "noisy_table"],
                          released.env(), ROOT)
    assert run.returncode == 2 and "released with noise" in run.stderr and "does not apply" in run.stderr, run.stderr


def test_the_key_is_in_no_file_dbt_writes(released: KeyedProject) -> None:
    forms = {"key hex": KEY.encode(), "key hex upper": KEY.upper().encode(), "key bytes": bytes.fromhex(KEY)}
    places = [p for place in released.places() for p in ([place] if place.is_file() else place.rglob("*"))
              if p.is_file()]
    assert [f"{what} in {p}" for p in places for what, form in forms.items() if form in p.read_bytes()] == []


@pytest.mark.parametrize(("variables", "keys", "message"), [
    ({"ptable": "nt_ptable_small"}, {"KANON_NOISE_KEY": KEY}, "publish a value in 1..2"),
    ({}, {"KANON_NOISE_KEY": None}, "no pseudonym key"),
    ({"count_rows": True}, {"KANON_NOISE_KEY": KEY}, "none of count_rows=true, protection and linked_to"),
])
def test_a_refused_release_keeps_the_previous_one(
    released: KeyedProject, variables: dict[str, Any], keys: dict[str, str | None], message: str,
) -> None:
    wh = released.warehouse
    before = mart(wh, "noisy_table")
    result = released.with_keys(keys).run("run", "-s", "noisy_table", "--vars", json.dumps(variables), expect_ok=False)
    assert message in result.output
    assert mart(wh, "noisy_table") == before


def test_bad_noise_and_tampered_long_forms_are_refused(released: KeyedProject) -> None:
    wh = released.warehouse
    models = ["noisy_dp", "noisy_protected", "noisy_lying_config", "noisy_other_ptable"]
    result = released.run("run", "-s", *models, "--vars", json.dumps({"bad": True, "tampered": True}), expect_ok=False)
    assert "noise mode 'dp' (differential privacy) is for count releases" in result.output
    assert "given: protection" in result.output
    refused = dict(trail(wh, "select report, failed_check from {audit}.kanon_audit_releases where status = 'REFUSED' "
                             "and report <> 'noisy_table'"))
    assert refused == {"noisy_dp": "compile", "noisy_protected": "compile",
                       "noisy_lying_config": "table_noise", "noisy_other_ptable": "table_recount"}
    assert not wh.query("select table_name from information_schema.tables where table_name in "
                        "('noisy_dp', 'noisy_protected', 'noisy_lying_config', 'noisy_other_ptable') "
                        f"and table_schema = '{wh.schema}'")
