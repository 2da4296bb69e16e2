"""kanon.release_records, pinned on DuckDB and Postgres against an independent brute force.

Fixtures: integration_tests/seeds/records (72 records of 64 patrons, with NULLs, a postal code the
hierarchy lacks, free text and a column name with a space) and integration_tests/models/records.
The expected node, loss and suppression of every release come from
kanon_tools.dev.records_reference, which evaluates every node of the lattice in Python from the
definitions, not from kanon's SQL; the published records are checked against it row for row, and
their classes by pycanon.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pandas as pd
import pytest
from kanon_tools.dev import records_reference as ref
from kanon_tools.pseudonym_env import pseudonym, pseudonym_env
from pycanon import anonymity
from support import INTEGRATION, ROOT
from support.projects import DbtProject, assert_bad_inputs_refused, copy_project
from support.records import plan_of, read_frame
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

AUDIT = "kanon_audit"
SEEDS = INTEGRATION / "seeds" / "records"
NODES = ("--select", "path:seeds/records", "path:models/records", "package:kanon,path:models/audit",
         "--exclude", "path:models/records/bad_inputs")
PROJECT = "model.kanon_integration_tests"


def _postal() -> ref.Hierarchy:
    return ref.Hierarchy.from_frame(pd.read_csv(SEEDS / "records_hierarchy_postal.csv", dtype=str))


AGE = ref.NumericBins([[20, 30, 40, 50, 60, 70], [20, 40, 60]])

# each release of models/records, as the reference states it: (quasi-identifiers, published
# columns in order, keyword arguments)
CASES: dict[str, tuple[dict[str, Any], list[str], dict[str, Any]]] = {
    "records_basic": (
        {"age": AGE, "postal_code": "postal", "sex": None,
         "visit_date": ref.DateTruncation(["month", "quarter", "year"]),
         "Home Branch": None},
        ["age", "postal_code", "sex", "visit_date", "diagnosis", "note", "Home Branch"],
        {"k": 3, "sensitive": ["diagnosis"], "l": 2, "budget_share": 0.1, "loss": "non_uniform_entropy"},
    ),
    "records_people_unit": (
        {"age": AGE, "postal_code": "postal", "sex": None},
        ["age", "postal_code", "sex", "diagnosis"],
        {"k": 3, "privacy_unit": "patron_id", "budget_share": 0.1, "budget_unit": "people", "loss": "discernibility"},
    ),
    "records_entropy": (
        {"age": AGE, "postal_code": "postal", "sex": None},
        ["age", "postal_code", "sex", "diagnosis"],
        {"k": 3, "sensitive": ["diagnosis"], "l": 2, "diversity": "entropy", "budget_share": 0.15, "loss": "height",
         "missing": "suppress"},
    ),
    "records_pseudonym": (
        {"age": ref.NumericBins([[20, 40, 60]]), "postal_code": "postal"},
        ["patron_id", "age", "postal_code", "diagnosis"],
        {"k": 3, "budget_share": 0.1, "loss": "non_uniform_entropy"},
    ),
    "records_refusable": (
        {"age": ref.NumericBins([[20, 40, 60]]), "postal_code": "postal"},
        ["age", "postal_code", "diagnosis"],
        {"k": 3, "loss": "non_uniform_entropy"},
    ),
}


KEY = "8c1f0e5a9b7d3c2e4f6a8b0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5e6"


@pytest.fixture(scope="module", autouse=True)
def pseudonym_key() -> Iterator[None]:
    """The pseudonym key, as a user sets it: KANON_PSEUDONYM_KEY (and PGOPTIONS for Postgres)."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in pseudonym_env({"KANON_PSEUDONYM_KEY": KEY}).items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="module")
def built(warehouse_kind: str, make_warehouse: Any) -> tuple[DbtProject, Warehouse]:
    wh = make_warehouse(warehouse_kind, "records")
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    project.run("build", *NODES)
    return project, wh


def _reference(wh: Warehouse, model: str) -> tuple[ref.RecordsReference, list[str]]:
    qis, published, kwargs = CASES[model]
    resolved = {name: (_postal() if g == "postal" else g) for name, g in qis.items()}
    data = read_frame(wh, wh.relation("records_people"))
    return ref.RecordsReference(data, resolved, **kwargs), published


def _texts(frame: pd.DataFrame, columns: list[str]) -> Counter[tuple[str | None, ...]]:
    return Counter(tuple(ref.value_text(v) for v in row) for row in frame[columns].itertuples(index=False))


@pytest.mark.parametrize("model", sorted(CASES))
def test_the_chosen_node_is_the_brute_force_optimum(built: tuple[DbtProject, Warehouse], model: str) -> None:
    """The search's node, its loss under every metric and its suppression by reason are what
    evaluating every node of the lattice finds, and the search evaluated fewer nodes than that."""
    _, wh = built
    reference, _ = _reference(wh, model)
    best, every = reference.brute_force()
    assert best is not None
    plan = plan_of(wh, model)
    assert plan["node"] == dict(zip(CASES[model][0], best.levels, strict=True)), (plan["loss"], best)
    assert plan["loss"]["height"] == best.height
    assert plan["loss"]["discernibility"] == best.discernibility
    assert plan["loss"]["non_uniform_entropy"] == pytest.approx(best.non_uniform_entropy, abs=1e-5)
    assert plan["suppressed"]["too_small"]["records"] == best.suppressed_records["too_small"]
    assert plan["suppressed"]["not_diverse"]["records"] == best.suppressed_records["not_diverse"]
    assert plan["suppressed"]["missing_value"]["records"] == best.suppressed_records["missing"]
    assert plan["lattice_size"] == len(every) == reference.lattice_size
    assert 0 < plan["nodes_evaluated"] <= len(every)
    hints = {h.column: h.rescued for h in reference.rescue_hints(best.levels)}
    if best.suppressed_records_total:
        assert {h["column"]: h["records"] for h in plan["rescue"]} == hints


@pytest.mark.parametrize("model", sorted(CASES))
def test_the_published_records_are_the_reference_release(built: tuple[DbtProject, Warehouse], model: str) -> None:
    """Row for row (as a multiset): the generalized labels, the sensitive and kept values; no
    dropped column, no identifier, no column of kanon's."""
    _, wh = built
    reference, published = _reference(wh, model)
    best, _ = reference.brute_force()
    assert best is not None
    out = read_frame(wh, wh.relation(model))
    assert list(out.columns) == published
    expected = reference.released(best.levels)
    if "patron_id" in published:  # published as its pseudonym
        expected["patron_id"] = [pseudonym(KEY, p) for p in expected["patron_id"]]
    assert _texts(out, published) == _texts(expected, published)


@pytest.mark.parametrize("model", ["records_basic", "records_entropy"])
def test_pycanon_finds_the_published_records_k_anonymous_and_l_diverse(
    built: tuple[DbtProject, Warehouse], model: str
) -> None:
    _, wh = built
    qis, _, kwargs = CASES[model]
    out = read_frame(wh, wh.relation(model)).astype(str)
    assert anonymity.k_anonymity(out, list(qis)) >= kwargs["k"]
    if kwargs.get("diversity") == "entropy":
        assert anonymity.entropy_l_diversity(out, list(qis), ["diagnosis"]) >= kwargs["l"]
    else:
        assert anonymity.l_diversity(out, list(qis), ["diagnosis"]) >= kwargs["l"]


def test_records_are_shuffled_the_same_way_every_time(built: tuple[DbtProject, Warehouse]) -> None:
    """The published order is a seeded hash of what a record shows: not the source's order (so it
    says nothing of it), and the same on every run."""
    project, wh = built
    first = [tuple(r) for r in wh.query(f"select * from {wh.relation('records_basic')}")]
    source_notes = [r[0] for r in wh.query(f"select note from {wh.relation('records_people')}")]
    published_notes = [r[5] for r in first]
    kept_in_source_order = [n for n in source_notes if n in set(published_notes)]
    assert published_notes != kept_in_source_order
    project.run("run", "--select", "records_basic")
    assert [tuple(r) for r in wh.query(f"select * from {wh.relation('records_basic')}")] == first


def test_the_audit_holds_no_value_of_the_records(built: tuple[DbtProject, Warehouse]) -> None:
    """A record release adds no group rows, and its releases rows (reason, plan) hold no value of
    any record: only column names, counts, levels and loss."""
    _, wh = built
    groups = wh.query(f"select count(*) from {wh.relation('kanon_audit_groups', AUDIT)} "
                      "where report_unique_id like '%.records_%'")
    assert groups == [(0,)]
    text = json.dumps([list(map(str, r)) for r in wh.query(
        f"select * from {wh.relation('kanon_audit_releases', AUDIT)} where report like 'records_%'")])
    source = read_frame(wh, wh.relation("records_people"))
    # every text and date of the records (numbers would match counts by chance)
    values = {str(v) for column in source.columns if column != "age"
              for v in source[column].dropna() if len(str(v)) >= 3}
    assert values, "the fixture has values to look for"
    leaked = [v for v in values if v in text]
    assert not leaked, f"{len(leaked)} value(s) of the records appear in the audit"  # not printed: they are personal


def test_a_record_release_that_cannot_meet_the_model_is_refused(built: tuple[DbtProject, Warehouse]) -> None:
    """No node reaches k (too_small), l (not_diverse), or the NULLs alone exceed the budget
    (missing_values): refused, on the record with the check and how far, the old release kept;
    and a long form whose published classes are below k is caught by the gate's own recount."""
    project, wh = built
    before = sorted(map(repr, wh.query(f"select * from {wh.relation('records_refusable')}")))
    assert len(before) > 0
    result = project.run("run", "--select", "records_refusable", "records_not_diverse", "records_missing_refused",
                         "records_tampered", "--vars", "{records_refusals: true, records_k: 100}", expect_ok=False)
    expected = {
        "records_refusable": ("records_search", "too_small", "no generalization reaches k=100"),
        "records_not_diverse": ("records_search", "not_diverse", "no generalization reaches l=6"),
        "records_missing_refused": ("records_search", "missing_values", "2 record(s) are suppressed up front"),
        "records_tampered": ("records_recount", None, "published class(es) of records describe fewer than k=3"),
    }
    for model, (check, refused, message) in expected.items():
        node = result.results[f"{PROJECT}.{model}"]
        assert node["status"] == "error", model
        assert message in node["message"] and "Nothing was published" in node["message"], node["message"]
        row = wh.query(f"select failed_check, reason from {wh.relation('kanon_audit_releases', AUDIT)} "
                       f"where report = '{model}' and status = 'REFUSED'")
        assert row and row[0][0] == check and message in row[0][1], (model, row)
        if refused:
            assert plan_of(wh, model, "REFUSED")["refused"]["check"] == refused
    assert sorted(map(repr, wh.query(f"select * from {wh.relation('records_refusable')}"))) == before
    for model in ("records_not_diverse", "records_missing_refused", "records_tampered"):
        assert wh.query("select count(*) from information_schema.tables where table_name = '" + model + "' "
                        f"and table_schema = '{wh.schema}'") == [(0,)]


BAD_INPUTS = {
    "bad_records_undeclared_column": "has column(s) without a role: note",
    "bad_records_unknown_column": "does not have: shoe_size",
    "bad_records_role": "column 'sex' needs a role",
    "bad_records_bins_order": "bin edges must be strictly increasing",
    "bad_records_bins_not_merging": "each coarser list of bin edges must keep only edges of the list before it",
    "bad_records_bins_on_text": "'postal_code' is binned, so it must be a number",
    "bad_records_date_on_number": "'age' is truncated as a date, so it must be a date or timestamp",
    "bad_records_date_units": "finest first, each once",
    "bad_records_two_generalizers": "has more than one generalizer (bins, date)",
    "bad_records_hierarchy_text": "must be a relation such as ref(",
    "bad_records_l_without_sensitive": "l=2 needs at least one column with the role sensitive",
    "bad_records_l_one": "l must be a whole number >= 2",
    "bad_records_privacy_unit_published": "declare it identifier (dropped or pseudonymised) or drop, not keep",
    "bad_records_no_quasi_identifier": "no column has the role quasi_identifier",
    "bad_records_loss": "loss must be one of",
    "bad_records_option": "unknown option 'bin'",
    "bad_records_not_gated": "only published through its gate",
}


def test_bad_record_release_inputs_fail_clearly_and_publish_nothing(built: tuple[DbtProject, Warehouse]) -> None:
    assert_bad_inputs_refused(*built, "models/records/bad_inputs", "bad_records", BAD_INPUTS)


def test_the_plan_operation_profiles_the_risk_and_writes_nothing(built: tuple[DbtProject, Warehouse]) -> None:
    project, wh = built
    # this warehouse's schemas only: the other worker creates tables in the same Postgres meanwhile
    in_warehouse = f"select count(*) from information_schema.tables where table_schema like '{wh.schema}%'"
    tables = wh.query(in_warehouse)
    summary = project.runner().run_operation("kanon.kanon_plan_records", {
        "relation": "records_people", "k": 3, "l": 6, "max_suppression": 0.05, "missing_value_policy": "suppress",
        "columns": {"patron_id": "drop", "age": {"role": "quasi_identifier", "bins": [[20, 40, 60]]},
                    "postal_code": {"role": "quasi_identifier", "hierarchy": "records_hierarchy_postal"},
                    "sex": "drop", "visit_date": "drop", "diagnosis": "sensitive", "note": "keep",
                    "Home Branch": "drop"}})
    assert summary["lattice_size"] == 3 * 4
    assert summary["records_in"] == 72 and summary["suppressed_up_front"] == 2
    assert summary["budget"] == {"share": 0.05, "unit": "records", "limit": 3}
    profile = summary["risk_profile"]
    reference = ref.RecordsReference(
        read_frame(wh, wh.relation("records_people")),
        {"age": ref.NumericBins([[20, 40, 60]]), "postal_code": _postal()},
        k=3, missing="suppress")
    sizes = Counter(tuple(r) for r in reference.labels((0, 0))[[f != "missing" for f in reference.fates((0, 0))]]
                    .itertuples(index=False))
    assert profile["records_in_classes_of_1"] == sum(n for n in sizes.values() if n == 1)
    assert profile["records_in_classes_of_2_to_k_minus_1"] == sum(n for n in sizes.values() if 1 < n < 3)
    assert profile["records_in_classes_of_k_or_more"] == sum(n for n in sizes.values() if n >= 3)
    assert any("l=6 is unreachable" in w for w in summary["warnings"])
    assert wh.query(in_warehouse) == tables


# --- random tables against the brute force -----------------------------------------------------

def _random_case(seed: int) -> tuple[list[dict[str, Any]], str, dict[str, Any], dict[str, Any]]:
    """A random table, and the release_records call and reference arguments for it."""
    rnd = random.Random(seed)
    n = rnd.randint(25, 70)
    rows = []
    for _ in range(n):
        rows.append({
            "pid": None if rnd.random() < 0.04 else f"u{rnd.randint(1, max(2, n - rnd.randint(0, 10)))}",
            "age": None if rnd.random() < 0.05 else rnd.randint(18, 69),
            "zone": rnd.choice(["a1", "a2", "b1", "b2", "c1"]),
            "kind": rnd.choice(["x", "y", "z"]),
            "s": rnd.choice(["p", "q", "r", None]) if rnd.random() < 0.1 else rnd.choice(["p", "q", "r"]),
        })
    k = rnd.randint(2, 5)
    l = rnd.choice([None, 2])  # noqa: E741
    diversity = rnd.choice(["distinct", "entropy"])
    budget = rnd.choice([0, 0.05, 0.2])
    loss = rnd.choice(["height", "discernibility", "non_uniform_entropy"])
    people = rnd.random() < 0.4
    unit = "people" if people and rnd.random() < 0.5 else "records"
    missing = rnd.choice(["star", "suppress"])
    columns = ("{'pid': 'drop', 'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50, 60], [20, 40, 60]]}, "
               "'zone': {'role': 'quasi_identifier', 'hierarchy': ref('records_random_zone')}, "
               "'kind': 'quasi_identifier', "
               "'s': '" + ("sensitive" if l else "keep") + "'}")
    call = (f"{{{{ config(materialized='k_anonymous', k={k}, max_suppression={budget}) }}}}\n"
            f"{{{{ kanon.release_records(ref('records_random_{seed}'), columns={columns}, l={l or 'none'}, "
            f"diversity='{diversity}', loss='{loss}', missing_value_policy='{missing}', "
            f"privacy_unit={repr('pid') if people else 'none'}, suppression_unit='{unit}') }}}}\n")
    kwargs = {"k": k, "sensitive": ["s"] if l else [], "l": l, "diversity": diversity, "budget_share": budget,
              "loss": loss, "privacy_unit": "pid" if people else None, "budget_unit": unit, "missing": missing}
    return rows, call, kwargs, {"seed": seed}


RANDOM_SEEDS = range(1, 13)
ZONE = ref.Hierarchy([("a1", "a", "*"), ("a2", "a", "*"), ("b1", "b", "*"), ("b2", "b", "*"), ("c1", "c", "*")])


@pytest.fixture(scope="module")
def random_built(
    warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Warehouse, dict[int, Any]]:
    project_dir = copy_project(INTEGRATION, tmp_path_factory.mktemp("records_random") / "project")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    seeds, models = project_dir / "seeds" / "records_random", project_dir / "models" / "records_random"
    seeds.mkdir(parents=True)
    models.mkdir(parents=True)
    zone_rows = "".join(f"{','.join(r)}\n" for r in ZONE.rows)
    (seeds / "records_random_zone.csv").write_text("level_0,level_1,level_2\n" + zone_rows)
    cases = {}
    for seed in RANDOM_SEEDS:
        rows, call, kwargs, _ = _random_case(seed)
        frame = pd.DataFrame(rows, columns=["pid", "age", "zone", "kind", "s"])
        frame.to_csv(seeds / f"records_random_{seed}.csv", index=False)
        (models / f"records_random_model_{seed}.sql").write_text(call)
        cases[seed] = (rows, kwargs)
    wh = make_warehouse(warehouse_kind, "rrand")
    project = DbtProject(project_dir, wh)
    project.run("deps")
    # a seed column that is all digits but NULL somewhere is still read as a number
    result = project.run("build", "--select", "path:seeds/records_random", "path:models/records_random",
                         "package:kanon,path:models/audit", expect_ok=None)
    return wh, {seed: (cases[seed], result.status(f"{PROJECT}.records_random_model_{seed}")) for seed in RANDOM_SEEDS}


@pytest.mark.parametrize("seed", RANDOM_SEEDS)
def test_random_tables_get_the_brute_force_optimum(random_built: tuple[Warehouse, dict[int, Any]], seed: int) -> None:
    wh, cases = random_built
    (_, kwargs), status = cases[seed]
    data = read_frame(wh, wh.relation(f"records_random_{seed}"))
    qis = {"age": ref.NumericBins([[20, 30, 40, 50, 60], [20, 40, 60]]), "zone": ZONE, "kind": None}
    best, _ = ref.RecordsReference(data, qis, **kwargs).brute_force()
    model = f"records_random_model_{seed}"
    if best is None:
        assert status == "error"
        statuses = wh.query(f"select status from {wh.relation('kanon_audit_releases', AUDIT)} where report = '{model}'")
        assert statuses == [("REFUSED",)]
        return
    assert status == "success", status
    plan = plan_of(wh, model)
    assert plan["node"] == dict(zip(qis, best.levels, strict=True)), (kwargs, plan["loss"], best)
    published = ["age", "zone", "kind", "s"]
    out = read_frame(wh, wh.relation(model))
    assert _texts(out, published) == _texts(ref.RecordsReference(data, qis, **kwargs).released(best.levels), published)


def test_an_identifier_is_replaced_by_its_keyed_hash(built: tuple[DbtProject, Warehouse]) -> None:
    """Each published record's patron_id is HMAC-SHA-256(key, patron_id), as Python computes it
    (so a file release and a warehouse release with the same key agree), and the raw ids are gone."""
    _, wh = built
    out = read_frame(wh, wh.relation("records_pseudonym"))
    assert list(out.columns) == ["patron_id", "age", "postal_code", "diagnosis"]
    source = read_frame(wh, wh.relation("records_people"))
    expected = {pseudonym(KEY, p) for p in source["patron_id"]}
    assert set(out["patron_id"]) <= expected and len(set(out["patron_id"])) > 10
    assert not set(out["patron_id"]) & set(source["patron_id"])


def test_a_relation_without_records_is_released_empty(built: tuple[DbtProject, Warehouse]) -> None:
    _, wh = built
    assert wh.query(f"select count(*) from {wh.relation('records_empty')}") == [(0,)]
    plan = plan_of(wh, "records_empty")
    assert (plan["records_in"], plan["records_out"], plan["nodes_evaluated"], plan["refused"]) == (0, 0, 0, None)


def test_a_search_in_small_batches_finds_the_same_release(built: tuple[DbtProject, Warehouse]) -> None:
    """The var kanon_records_batch_rows bounds how many (node x class) rows one query groups, so
    that memory stays bounded on large tables: evaluated a few nodes at a time, the search chooses
    the same node and publishes the same records."""
    project, wh = built
    before = plan_of(wh, "records_basic")
    rows = sorted(map(repr, wh.query(f"select * from {wh.relation('records_basic')}")))
    whole = _evaluations_of_last_run(project, "--select", "records_basic")
    split = _evaluations_of_last_run(project, "--select", "records_basic", "--vars", "{kanon_records_batch_rows: 100}")
    after = plan_of(wh, "records_basic")
    same = ("node", "loss", "nodes_evaluated")
    assert [after[key] for key in same] == [before[key] for key in same]
    assert sorted(map(repr, wh.query(f"select * from {wh.relation('records_basic')}"))) == rows
    assert split > whole  # the batches were split: more evaluation queries for the same nodes


def _evaluations_of_last_run(project: DbtProject, *args: str) -> int:
    """Runs dbt; how many evaluation queries (a batch's nodes read from the lattice) it logged."""
    project.run("run", *args)
    log = (project.state_dir / "logs" / "dbt.log").read_text()
    return log[log.rindex("Running with dbt="):].count(" as _k_batch from ")


@pytest.mark.parametrize("bits", [1, 7])
def test_labels_packed_in_narrow_words_find_the_same_release(built: tuple[DbtProject, Warehouse], bits: int) -> None:
    """The search packs every level's label codes into words and takes a class's labels at a node
    as the word masked to the node's fields. With words of 1 bit (one field each, and every field
    wider than one bit alone in its word) or 7 bits (fields sharing words), the search chooses the
    same node and publishes the same records as with 62-bit words: a field laid over another, or
    a mask that misses or keeps a wrong field, would merge or split classes."""
    project, wh = built
    before = plan_of(wh, "records_basic")
    rows = sorted(map(repr, wh.query(f"select * from {wh.relation('records_basic')}")))
    log = project.state_dir / "logs" / "dbt.log"
    seen = len(log.read_text())
    result = project.run("run", "--select", "records_basic", "--vars", f"{{kanon_records_word_bits: {bits}}}")
    after = plan_of(wh, "records_basic")
    same = ("node", "loss", "nodes_evaluated", "suppressed")
    assert result.ok and [after[key] for key in same] == [before[key] for key in same]
    assert sorted(map(repr, wh.query(f"select * from {wh.relation('records_basic')}"))) == rows
    assert " as _k_w1" in log.read_text()[seen:]  # this run packed more than one word


def test_a_word_width_outside_1_to_62_is_refused(built: tuple[DbtProject, Warehouse]) -> None:
    project, _ = built
    result = project.run("run", "--select", "records_basic", "--vars", "{kanon_records_word_bits: 63}", expect_ok=False)
    assert "kanon_records_word_bits must be a whole number >= 1 and <= 62, got 63" in result.output
