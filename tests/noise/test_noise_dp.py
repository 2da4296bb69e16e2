"""Noise after k, mode 'dp': differentially private count releases with a budget.

A host project installs kanon through packages.yml and releases people by branch and age band
over a declared set of cells (a seed at the age band's level 1), each person counted in at most
two cells; a Gaussian release over a hierarchy's level; a release of 400 cells of 12 people for
the goodness of fit; a budget spent release by release. Ids and labels are hostile (quotes,
non-ASCII, commas, colons), some people are NULL, some events fall outside the declared cells.

Checked against what the release did not compute:
- every published count is the true bounded count (tests/oracles/dp.py) plus the table's z for
  the keyed draw of the cell under the release's nonce, and a cell is published exactly when that
  noisy count reaches k: the k rule decides on noisy counts, never on true ones;
- the table the macros tabulate in Jinja is the oracle's, within 1e-9 in total variation of the
  exact discrete Laplace / Gaussian, and the release's draws fit it (chi-square over 400 cells);
- what a release spends is OpenDP's accounting for the same mechanism, scale and sensitivity;
- the ledger adds up release by release and refuses the one that would pass the budget (the
  previous release stays); each release draws afresh;
- the key is in no file dbt writes; bad input is refused before anything runs.
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from oracles import dp
from support import ROOT
from support.projects import KeyedProject
from support.warehouses import Warehouse, mart

pytestmark = pytest.mark.dbt

KEY = "d1f7" * 16
K = 3
BRANCHES = ("CENTRAL", "O'Hara", 'Zürich "Nord"', "a,b:c")
BANDS = ("13-17", "18-24", "25-44", "45-64")
AGE = (("13-17", "13-24", "*"), ("18-24", "13-24", "*"), ("25-44", "25-64", "*"), ("45-64", "25-64", "*"))
LEVEL1 = {leaf: up for leaf, up, _ in AGE}
# the declared cells: every branch but the last, each with both level-1 bands, and one cell
# nobody is in ("nobody's branch"); the last branch's events are outside
# and 24 kiosks of 1 to 4 people: thin cells the noise moves across k either way
KIOSKS = [(f"kiosk {n:02d}", 1 + n % 4) for n in range(24)]
CELLS = ([(b, band) for b in BRANCHES[:3] for band in ("13-24", "25-64")] + [("nobody's branch", "13-24")]
         + [(kiosk, "25-64") for kiosk, _ in KIOSKS])
FIT_CELLS, FIT_PEOPLE = 400, 12

RELEASE = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(ref('dp_events'), privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('dp_age')},
    noise={'mode': 'dp', 'mechanism': 'laplace', 'epsilon': 1.0, 'max_cells_per_person': 2,
           'budget': {'epsilon': 100}, 'cells': ref('dp_cells'), 'levels': {'age_band': 1}}) }}
"""
GAUSS = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(ref('dp_events'), privacy_unit='Patron Id', dimensions=['age_band'],
    hierarchies={'age_band': ref('dp_age')},
    noise={'mode': 'dp', 'mechanism': 'gaussian', 'rho': 0.5, 'max_cells_per_person': 1,
           'budget': {'rho': 10}, 'levels': {'age_band': 0}, 'budget_source': 'people by band'}) }}
"""
FIT = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(ref('dp_fit_events'), privacy_unit='person', dimensions=['kiosk'],
    noise={'mode': 'dp', 'epsilon': 1.0, 'max_cells_per_person': 1, 'budget': {'epsilon': 100},
           'cells': ref('dp_fit_cells')}) }}
"""
BUDGET = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_counts(ref('dp_events'), privacy_unit='Patron Id', dimensions=['age_band'],
    hierarchies={'age_band': ref('dp_age')},
    noise={'mode': 'dp', 'epsilon': 0.4, 'max_cells_per_person': 1, 'budget': {'epsilon': 1.0},
           'levels': {'age_band': 1}, 'budget_source': 'a budget of its own'}) }}
"""
# one model a way of making it bad (BAD_CASES, under models/bad/), all refused by one `dbt run`: a
# full parse for each set of --vars would cost more than the refusals. Each model's case is a JSON
# literal in place of CASE, and its noise, config and arguments are the good ones changed by it
BAD = """{%- set case = fromjson(CASE) -%}
{{ config(materialized=case.get('materialized', 'k_anonymous'), k=3,
    max_suppression=case.get('max_suppression', none)) }}
{%- set good = {'mode': 'dp', 'epsilon': 1.0, 'max_cells_per_person': 1, 'budget': {'epsilon': 100},
                'cells': ref('dp_cells'), 'levels': {'age_band': 1}, 'budget_source': 'bad'} -%}
{%- set noise = dict(good) -%}
{%- do noise.update(case.get('noise', {})) -%}
{%- for drop in case.get('drop', []) -%}{%- do noise.pop(drop) -%}{%- endfor -%}
{%- if case.get('bad_cells') -%}{%- do noise.update({'cells': ref(case['bad_cells'])}) -%}{%- endif -%}
{{ kanon.release_counts(ref('dp_events'), privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('dp_age')}, ladder=case.get('ladder'), remainder=case.get('remainder', false),
    measures=case.get('measures'), noise=noise) }}
"""
BAD_CASES: list[tuple[dict[str, Any], str]] = [
    ({"noise": {"epsilon": 0}}, "noise's epsilon must be a number above 0"),
    ({"noise": {"epsilon": -1}}, "noise's epsilon must be a number above 0"),
    ({"noise": {"rho": 0.5}}, "spends epsilon, not rho"),
    ({"noise": {"mechanism": "gaussian"}}, "spends rho, not epsilon"),
    ({"drop": ["cells", "levels"]}, "publishes a set of cells fixed in advance"),
    ({"drop": ["cells"]}, "has no hierarchy, so noise's levels cannot list its values"),
    ({"drop": ["max_cells_per_person"]}, "max_cells_per_person"),
    ({"drop": ["budget"]}, "needs a budget"),
    ({"noise": {"budget": {"rho": 1}}}, "needs a budget"),
    ({"ladder": [{"age_band": 2}]}, "ladder is refused with noise mode 'dp'"),
    ({"remainder": True}, "remainder is refused with noise mode 'dp'"),
    ({"max_suppression": 0.1}, "max_suppression is refused with noise mode 'dp'"),
    ({"measures": {"loans": "count(*)"}}, "neither count_rows=true nor measures"),
    ({"materialized": "table"}, "only the k_anonymous materialization keeps"),
    ({"bad_cells": "dp_cells_dup"}, "must list each published cell once"),
    ({"bad_cells": "dp_cells_null"}, "with a NULL"),
    ({"noise": {"levels": {"branch": 1}}}, "noise's level of 'branch'"),
    ({"noise": {"epsilon": 0.0005}}, "above the largest kanon tabulates"),
    ({"noise": {"budget": {"epsilon": 0.5}}}, "privacy budget exhausted"),
]


# each case's model, named by its place in BAD_CASES
BAD_MODELS = {f"dp_bad_{at:02d}": (case, message) for at, (case, message) in enumerate(BAD_CASES)}


def events() -> list[dict[str, str | None]]:
    out: list[dict[str, str | None]] = []
    odd = ["O'Brien", "zoë", " 42 ", "7", "x,y", 'q"t', "a:b"]
    person = 0
    for b, branch in enumerate(BRANCHES):
        for a, band in enumerate(BANDS):
            for _ in range(2 + (b * 3 + a * 5) % 7):
                pid = f"{odd[person % len(odd)]}#{person}"
                person += 1
                out.append({"Patron Id": pid, "branch": branch, "age_band": band})
                if person % 3 == 0:  # some people in three or four cells: the bound of 2 drops some
                    for other in BRANCHES[:3]:
                        if other != branch:
                            out.append({"Patron Id": pid, "branch": other, "age_band": band})
    for kiosk, size in KIOSKS:
        out += [{"Patron Id": f"{kiosk}/{p}", "branch": kiosk, "age_band": "45-64"} for p in range(size)]
    out.append({"Patron Id": None, "branch": "CENTRAL", "age_band": "13-17"})
    out.append({"Patron Id": "unknown band", "branch": "CENTRAL", "age_band": "99+"})  # missing: outside
    return out


def fit_events() -> list[dict[str, str]]:
    return [{"person": f"f{c}-{p}", "kiosk": f"kiosk {c:03d}"} for c in range(FIT_CELLS) for p in range(FIT_PEOPLE)]


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_host(path: Path) -> None:
    for folder in ("models", "seeds"):
        (path / folder).mkdir(parents=True)
    (path / "dbt_project.yml").write_text(
        "name: dp_host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  dp_host:\n"
        "    dp_age:\n      +column_types: {level_0: varchar, level_1: varchar, level_2: varchar}\n")
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    write_csv(path / "seeds" / "dp_events.csv", events())
    write_csv(path / "seeds" / "dp_fit_events.csv", fit_events())
    write_csv(path / "seeds" / "dp_cells.csv", [{"branch": b, "age_band": a} for b, a in CELLS])
    write_csv(path / "seeds" / "dp_cells_dup.csv", [{"branch": b, "age_band": a} for b, a in CELLS + CELLS[:1]])
    write_csv(path / "seeds" / "dp_cells_null.csv", [{"branch": b, "age_band": a} for b, a in CELLS] +
              [{"branch": "", "age_band": "13-24"}])
    write_csv(path / "seeds" / "dp_fit_cells.csv", [{"kiosk": f"kiosk {c:03d}"} for c in range(FIT_CELLS)])
    (path / "seeds" / "dp_age.csv").write_text("level_0,level_1,level_2\n" + "".join(",".join(r) + "\n" for r in AGE))
    for name, sql in {"dp_release": RELEASE, "dp_gauss": GAUSS, "dp_fit": FIT, "dp_budget": BUDGET}.items():
        (path / "models" / f"{name}.sql").write_text(sql)
    (path / "models" / "bad").mkdir()
    for model, (case, _) in BAD_MODELS.items():
        (path / "models" / "bad" / f"{model}.sql").write_text(BAD.replace("CASE", repr(json.dumps(case))))


@pytest.fixture(scope="module")
def released(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> KeyedProject:
    host = tmp_path_factory.mktemp("dp") / "dp_host"
    write_host(host)
    project = KeyedProject(host, make_warehouse(warehouse_kind, "dp"), {"KANON_NOISE_KEY": KEY})
    project.run("deps")
    project.run("seed")
    project.run("run", "--exclude", "path:models/bad")
    return project


@pytest.fixture(scope="module")
def refusals(released: KeyedProject) -> DbtResult:
    """Every model of BAD_CASES run at once: each must fail on its own message."""
    return released.run("run", "-s", "path:models/bad", expect_ok=False)


def releases(wh: Warehouse, model: str) -> list[tuple[Any, ...]]:
    """Its RELEASED rows, oldest first: plan, ledger columns and facts."""
    return wh.query(
        "select release_plan, budget_source, budget_unit, epsilon_spent, rho_spent, delta_spent, "
        "contributions_dropped, events_outside_cells, invocation_id, cells_passed, cells_suppressed "
        f"from {wh.schema}_kanon_audit.kanon_audit_releases where report_unique_id = 'model.dp_host.{model}' "
        "and status = 'RELEASED' order by released_at")


def noise_of(wh: Warehouse, model: str) -> dict[str, Any]:
    return dict(json.loads(releases(wh, model)[-1][0])["noise"])


def person_cells() -> dict[str, list[tuple[str, ...]]]:
    mine: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for e in events():
        if e["Patron Id"] is not None:
            band = LEVEL1.get(str(e["age_band"]), "*")
            mine[e["Patron Id"]].append((str(e["branch"]), band))
    return mine


def test_published_counts_are_bounded_true_counts_plus_keyed_noise(released: KeyedProject) -> None:
    wh = released.warehouse
    noise = noise_of(wh, "dp_release")
    table = dp.table("laplace", dp.scale_for("laplace", 1.0, 2))
    counts, dropped, outside = dp.bounded_counts(person_cells(), CELLS, 2)
    assert dropped > 0 and outside > 0, "the fixture must drop contributions and have some outside the cells"
    noisy = {cell: n + table.z(dp.draw(KEY, noise["nonce"], cell)) for cell, n in counts.items()}
    expected = sorted(((b, "0", a, "1", str(v)) for (b, a), v in noisy.items() if v >= K), key=repr)
    got = sorted((tuple(str(x) for x in row) for row in mart(wh, "dp_release")), key=repr)
    assert got == expected
    # the k rule on noisy counts: a cell's true count says nothing of whether it is published
    [row] = [r for r in releases(wh, "dp_release")[-1:]]
    assert row[6:8] == (dropped, outside)
    assert (row[9], row[10]) == (sum(v >= K for v in noisy.values()), sum(v < K for v in noisy.values()))


def test_a_gaussian_release_over_a_hierarchy_s_level_publishes_its_labels_noised(released: KeyedProject) -> None:
    # no cells relation: every label of the hierarchy at level 0, "99+" (missing from it) outside
    wh = released.warehouse
    noise = noise_of(wh, "dp_gauss")
    assert noise["mechanism"] == "gaussian" and noise["levels"] == {"age_band": 0}
    table = dp.table("gaussian", dp.scale_for("gaussian", 0.5, 1))
    mine: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for e in events():
        if e["Patron Id"] is not None:
            mine[e["Patron Id"]].append((str(e["age_band"]),))
    counts, dropped, outside = dp.bounded_counts(mine, [(band,) for band in BANDS], 1)
    assert outside == 1 and dropped == 0
    noisy = {cell: n + table.z(dp.draw(KEY, noise["nonce"], cell)) for cell, n in counts.items()}
    expected = sorted(((band, "0", str(v)) for (band,), v in noisy.items() if v >= K), key=repr)
    assert sorted((tuple(str(x) for x in row) for row in mart(wh, "dp_gauss")), key=repr) == expected


def test_k_is_decided_on_noisy_counts_not_true_ones(released: KeyedProject) -> None:
    # the trail's row of every declared cell: a cell is suppressed exactly when its noisy count is
    # below k, whatever its true count
    wh = released.warehouse
    trail = wh.query(
        f"select decision, people, people_shown, cell_key from {wh.schema}_kanon_audit.kanon_audit_groups "
        "where report_unique_id = 'model.dp_host.dp_release'")
    latest = noise_of(wh, "dp_release")
    table = dp.table("laplace", latest["scale"])
    assert len(trail) == len(CELLS)  # every declared cell on the trail, zeros included
    for decision, people, shown, u in trail:
        z = table.z(int(u))
        assert decision == ("PASS" if people + z >= K else "SUPPRESS")
        assert shown == (people + z if people + z >= K else None)
    crossed = [d for d, p, _, _ in trail if (p < K) == (d == "PASS")]
    assert crossed, "the fixture must have a cell the noise moves across k"


def test_the_table_is_the_exact_distribution_within_its_total_variation(released: KeyedProject) -> None:
    for model, mechanism in [("dp_release", "laplace"), ("dp_gauss", "gaussian")]:
        noise = noise_of(released.warehouse, model)
        table = dp.table(mechanism, noise["scale"])
        assert noise["table_hash"] == hashlib.md5(json.dumps([list(r) for r in table.rows]).encode()).hexdigest()
        assert abs(noise["tv"] - table.tv) < 1e-15 and table.tv < 1e-9
        assert noise["table_bound"] == table.bound
        exact = 0.5 * sum(abs(table.probability(z) - dp.exact_probability(mechanism, noise["scale"], z))
                          for z in range(-3 * table.bound, 3 * table.bound + 1))
        assert exact <= table.tv + 1e-12


def test_the_draws_fit_the_declared_distribution(released: KeyedProject) -> None:
    from scipy.stats import chisquare

    wh = released.warehouse
    zs = [shown - people for shown, people in wh.query(
        f"select people_shown, people from {wh.schema}_kanon_audit.kanon_audit_groups "
        "where report_unique_id = 'model.dp_host.dp_fit' and decision = 'PASS'")]
    assert len(zs) >= FIT_CELLS - 2  # 12 people + z below 3 needs z <= -10: about 1 in 15,000 cells
    scale = noise_of(wh, "dp_fit")["scale"]
    bins = list(range(-3, 4))
    observed = [sum(z <= -4 for z in zs)] + [Counter(zs)[b] for b in bins] + [sum(z >= 4 for z in zs)]
    probabilities = [dp.exact_probability("laplace", scale, b) for b in bins]
    tail = (1 - sum(probabilities)) / 2
    expected = [len(zs) * p for p in [tail, *probabilities, tail]]
    assert chisquare(observed, expected).pvalue > 1e-4


def test_what_a_release_spends_is_opendp_s_accounting(released: KeyedProject) -> None:
    wh = released.warehouse
    laplace, gauss = noise_of(wh, "dp_release"), noise_of(wh, "dp_gauss")
    assert laplace["spent"]["epsilon"] == pytest.approx(dp.opendp_spent("laplace", laplace["scale"], 2), rel=1e-12)
    assert gauss["spent"]["rho"] == pytest.approx(dp.opendp_spent("gaussian", gauss["scale"], 1), rel=1e-12)
    # the ledger: what the release spent, on its own row, and delta from the table's distance
    row = releases(wh, "dp_release")[-1]
    assert row[1:5] == (laplace["spent"]["source"], "Patron Id", pytest.approx(1.0), None)
    assert row[5] == pytest.approx(2 * laplace["tv"] * (1 + dp.E ** (1 / laplace["scale"])), rel=1e-9) and row[5] < 1e-8
    assert releases(wh, "dp_gauss")[-1][1:5] == ("people by band", "Patron Id", None, pytest.approx(0.5))


def test_the_budget_is_spent_release_by_release_and_then_refused(released: KeyedProject) -> None:
    wh = released.warehouse
    released.run("run", "-s", "dp_budget")  # 0.4 + 0.4 of 1.0
    before = mart(wh, "dp_budget")
    spent = [row[3] for row in releases(wh, "dp_budget")]
    assert spent == [pytest.approx(0.4), pytest.approx(0.4)]
    first, second = (json.loads(row[0])["noise"] for row in releases(wh, "dp_budget"))
    assert first["nonce"] != second["nonce"]  # a fresh draw per release
    assert second["remaining"]["epsilon"] == pytest.approx(0.2)
    result = released.run("run", "-s", "dp_budget", expect_ok=False)
    assert "privacy budget exhausted" in result.output and "has spent epsilon 0.8" in result.output
    assert mart(wh, "dp_budget") == before
    assert len(releases(wh, "dp_budget")) == 2


def test_the_key_is_in_no_file_dbt_writes(released: KeyedProject) -> None:
    forms = {"hex": KEY.encode(), "upper": KEY.upper().encode(), "bytes": bytes.fromhex(KEY)}
    found = [f"{what} in {path}" for place in released.places() if place.exists()
             for path in ([place] if place.is_file() else [p for p in place.rglob("*") if p.is_file()])
             for what, form in forms.items() if form in path.read_bytes()]
    assert found == []


@pytest.mark.parametrize(("model", "message"), [(model, message) for model, (_, message) in BAD_MODELS.items()])
def test_bad_dp_input_is_refused_before_anything_runs(
    released: KeyedProject, refusals: DbtResult, model: str, message: str,
) -> None:
    wh = released.warehouse
    node = refusals.results[f"model.dp_host.{model}"]
    assert node["status"] == "error" and message in node["message"], node
    assert releases(wh, model) == []
    # and no relation of that name: nothing published, not even a table without a trail row
    assert wh.query("select count(*) from information_schema.tables where table_schema = "
                    f"'{wh.schema}' and table_name = '{model}'") == [(0,)]


def test_a_missing_key_is_refused(released: KeyedProject) -> None:
    before = mart(released.warehouse, "dp_release")
    result = released.with_keys({"KANON_NOISE_KEY": None}).run("run", "-s", "dp_release", expect_ok=False)
    assert "no pseudonym key" in result.output
    assert mart(released.warehouse, "dp_release") == before


def test_readers_find_the_mechanism_and_the_standard_deviation_on_the_mart(released: KeyedProject) -> None:
    wh = released.warehouse
    noise = noise_of(wh, "dp_release")
    note = wh.comment("dp_release") or ""
    assert note.startswith("kanon: differentially private counts (laplace noise, epsilon 1.0 per release, "
                           "at most 2 cells per person)")
    assert f"standard deviation of a published count {round(noise['variance'] ** 0.5, 2)} " in note


def test_dbt_show_and_compile_draw_nothing_and_show_the_mart(released: KeyedProject) -> None:
    # each draw is a release: a preview drawing afresh, repeated, would average the noise away
    wh = released.warehouse
    before = mart(wh, "dp_release")
    released.run("compile", "-s", "dp_release")
    [compiled] = list((released.state_dir / "target" / "compiled").rglob("dp_release.sql"))
    sql = compiled.read_text()
    assert "kanon:dp:v1" not in sql and "kanon_hmac_block" not in sql and "from " in sql
    shown = released.run("show", "-s", "dp_release", "--limit", "1000", "--output", "json")
    payload = shown.output[shown.output.index("{"):shown.output.rindex("}") + 1]
    rows = json.loads(payload)["show"]
    assert sorted((tuple(str(v) for v in r.values()) for r in rows), key=repr) == \
        sorted((tuple(str(v) for v in row) for row in before), key=repr)
    assert len(releases(wh, "dp_release")) == 1  # nothing spent
