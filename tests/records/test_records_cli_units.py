"""`kanon-records`' parts that need no dbt (issue 14): the configuration's checks, the prefix
hierarchy, the recount of a finished file, the proposal inspect makes, the receipts' text in
both languages, scanned for the values they must not hold, and where the engine finds kanon's
dbt package."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.cli import records as cli
from kanon_tools.dbt_runner import DbtRunner
from kanon_tools.receipt import records_receipt, render_text
from kanon_tools.records import commands, engine, hints, report
from kanon_tools.records.config import ConfigError, check_header, hierarchy_problem, parse_config, prefix_rows
from kanon_tools.records.files import Table
from support import ROOT

EXAMPLE = ROOT / "examples" / "records_japan"

COLUMNS = ("id", "age", "zip", "sex", "diagnosis")


def parse(**changes: Any) -> Any:
    raw: dict[str, Any] = {"k": 2, "columns": {"id": "drop", "age": {"role": "quasi_identifier", "type": "integer",
                                                                      "bins": [[0, 40]]},
                                               "zip": {"role": "quasi_identifier", "prefix": [3, 1]},
                                               "sex": "quasi_identifier", "diagnosis": "sensitive"}}
    columns = changes.pop("columns", {})
    raw.update(changes)
    raw["columns"].update(columns)
    return parse_config(raw, COLUMNS, base=Path("."))


def test_a_valid_configuration_is_read_in_the_files_column_order() -> None:
    config = parse(l=2, max_suppression=0.1)
    assert [c.name for c in config.columns] == list(COLUMNS)
    assert config.column("zip").prefix == (3, 1) and config.column("age").bins == ((0, 40),)
    assert config.l == 2 and config.max_suppression == 0.1 and config.k == 2


@pytest.mark.parametrize(("changes", "message"), [
    ({"k": True}, "k must be a whole number"),
    ({"k": 1.5}, "k must be a whole number"),
    ({"l": 2, "columns": {"diagnosis": "drop"}}, "l is set but no column is sensitive"),
    ({"max_suppression": 1}, "max_suppression must be a share"),
    ({"max_suppression": float("nan")}, "max_suppression must be a share"),
    ({"diversity": "recursive"}, "diversity must be one of"),
    ({"suppression_unit": "people"}, "needs a privacy_unit"),
    ({"privacy_unit": "sex"}, "must have role identifier or drop"),
    ({"privacy_unit": "nobody"}, "is not a column of the file"),
    ({"verison": 1}, "unknown key(s) 'verison'"),
    ({"version": 2}, "version must be 1"),
    ({"shuffle_seed": ""}, "shuffle_seed must be a non-empty string"),
    ({"columns": {"age": {"role": "quasi_identifier", "bins": [[0, 40]]}}}, "give the column type integer or number"),
    ({"columns": {"zip": {"role": "quasi_identifier", "prefix": [1, 3]}}}, "strictly decreasing"),
    ({"columns": {"zip": {"role": "quasi_identifier", "prefix": [3], "hierarchy": {"rows": [["a", "*"]]}}}},
     "give one generalizer"),
    ({"columns": {"sex": {"role": "quasi_identifier", "type": "date", "date": ["month", "month"]}}}, "each once"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", "x", "*"], ["a", "y", "*"]]}}}},
     "a leaf appears in more than one"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", "*"], ["b", "+"]]}}}}, "one root"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", "*"], ["b", "c", "*"]]}}}},
     "same number of levels"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"file": "no_such_file.csv"}}}},
     "cannot read the hierarchy file"),
    ({"columns": {"id": {"role": "drop", "pseudonym": True}}}, "only on an identifier"),
    ({"columns": {"id": {"role": "drop", "colour": "red"}}}, "unknown key(s) 'colour'"),
    ({"columns": {"sex": "drop", "age": "drop", "zip": "drop"}}, "no column is a quasi_identifier"),
    # what kanon's macros would refuse after dbt started, refused here first
    ({"k": 1}, "k must be a whole number of at least 2"),
    ({"k": 2 ** 31}, "k must be at most 2147483647"),
    ({"l": 1}, "l must be a whole number of at least 2"),
    ({"columns": {"age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 20, 40], [0, 30]]}}},
     "column 'age': bins list 2 keeps edge(s) not in list 1"),
    ({"columns": {"age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 40, 20]]}}},
     "column 'age': bins list 1 must be strictly increasing"),
    ({"columns": {"age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 40, 40]]}}},
     "column 'age': bins list 1 must be strictly increasing"),
    ({"columns": {"age": {"role": "quasi_identifier", "type": "number", "bins": [[0, float("nan")]]}}},
     "column 'age': bins must be a non-empty list of finite numbers"),
    ({"columns": {"age": {"role": "quasi_identifier", "type": "integer", "bins": [0, 40]}}},
     "column 'age': bins must be a non-empty list of edge lists"),
    ({"columns": {"sex": {"role": "quasi_identifier", "type": "date", "date": ["year", "month"]}}}, "finest first"),
    ({"columns": {"sex": {"role": "quasi_identifier", "type": "date", "date": ["week"]}}}, "finest first"),
    ({"columns": {"zip": {"role": "quasi_identifier", "prefix": [3, 0]}}}, "prefix must be positive lengths"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", " ", "*"], ["b", "x", "*"]]}}}},
     "as non-blank strings"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", "x", "p", "*"],
                                                                              ["b", "x", "q", "*"]]}}}},
     "column 'sex': 1 hierarchy label(s) have more than one parent at the level above"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["10100", "10101", "*"],
                                                                              ["10101", "10100", "*"]]}}}},
     "column 'sex': 2 hierarchy label(s) stand for different leaves at different levels"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["a", "a", "*"], ["b", "a", "*"]]}}}},
     "column 'sex': 1 hierarchy label(s) stand for different leaves at different levels"),
    ({"columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"rows": [["*", "x", "*"], ["b", "x", "*"]]}}}},
     "column 'sex': 1 hierarchy label(s) stand for different leaves at different levels"),
])
def test_a_misfit_is_named_by_key_and_column(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as raised:
        parse(**changes)
    assert message in str(raised.value)


@pytest.mark.parametrize("rows", [
    [["65+", "65+", "*"], ["70", "65+", "*"]],  # not the same leaves: 65+ alone, then 65+ and 70
])
def test_a_label_at_two_levels_for_different_leaves_is_refused(rows: list[list[str]]) -> None:
    with pytest.raises(ConfigError, match="stand for different leaves"):
        parse(columns={"sex": {"role": "quasi_identifier", "hierarchy": {"rows": rows}}})


@pytest.mark.parametrize("rows", [
    [["65+", "65+", "*"], ["0-64", "0-64", "*"]],  # a label repeated for the same leaves
    [["北海道", "北海道", "*"], ["青森県", "東北", "*"], ["岩手県", "東北", "*"]],
    [["a", "x", "x", "*"], ["b", "y", "y", "*"]],
    [["only", "only"]],  # one leaf, its own root
])
def test_a_label_repeated_for_the_same_leaves_is_fine(rows: list[list[str]]) -> None:
    parse(columns={"sex": {"role": "quasi_identifier", "hierarchy": {"rows": rows}}})


@pytest.mark.parametrize(("columns", "message"), [
    (("id", "Age", "age"), "columns 'Age' and 'age' differ only in letter case"),
    (("id", "_k_age"), "column '_k_age': names starting with _k_ or _kanon_ are kanon's own"),
    (("id", "_KANON_x"), "column '_KANON_x': names starting with _k_ or _kanon_ are kanon's own"),
    (("id", "  "), "column 2 has a blank name"),
])
def test_a_header_kanon_cannot_take_is_refused(columns: tuple[str, ...], message: str) -> None:
    raw = {"k": 2, "columns": {name: "quasi_identifier" for name in columns}}
    with pytest.raises(ConfigError) as raised:
        parse_config(raw, columns, base=Path("."))
    assert message in str(raised.value)
    with pytest.raises(ConfigError, match=r"letter case|kanon's own|blank name"):
        check_header(columns)


@pytest.mark.parametrize("changes", [
    {"columns": {"生年月日": {"role": "quasi_identifier", "type": "date", "date": ["year", "month"]}}},
    {"columns": {"都道府県": {"role": "quasi_identifier", "hierarchy": {"rows": [["北海道", " ", "*"]]}}}},
    {"l": 1},
])
def test_a_refusal_decidable_from_the_configuration_never_starts_dbt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        changes: dict[str, Any]) -> None:
    def no_dbt(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("dbt started")

    monkeypatch.setattr(DbtRunner, "run", no_dbt)
    data = json.loads((EXAMPLE / "config.json").read_text(encoding="utf-8"))
    data["columns"].update(changes.pop("columns", {}))
    data.update(changes)
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    for verb, args in (("plan", []), ("run", ["-o", str(tmp_path / "out.csv")])):
        code = cli.main([verb, str(EXAMPLE / "people.csv"), "-c", str(path), "--work-dir", str(tmp_path / "w"), *args])
        err = capsys.readouterr().err
        assert code == 2 and "kanon refused" not in err and err.startswith("kanon records: c.json: "), err
        assert not (tmp_path / "w").exists() and not (tmp_path / "out.csv").exists()


def test_a_prefix_over_a_column_without_enough_digits_is_refused_before_dbt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def no_dbt(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("dbt started")

    monkeypatch.setattr(DbtRunner, "run", no_dbt)
    (tmp_path / "f.csv").write_text("zip,sex\n,F\n,M\n", encoding="utf-8")
    (tmp_path / "c.json").write_text(json.dumps({"k": 2, "columns": {
        "zip": {"role": "quasi_identifier", "prefix": [3]}, "sex": "quasi_identifier"}}), encoding="utf-8")
    code = cli.main(["plan", str(tmp_path / "f.csv"), "-c", str(tmp_path / "c.json")])
    assert code == 2 and "column 'zip': every value is empty" in capsys.readouterr().err
    # a value with too few digits labels itself the same at two levels, for different values: refused, counted
    (tmp_path / "f.csv").write_text("zip,sex\n100-0001,F\n150-0002,M\n不明,F\n", encoding="utf-8")
    code = cli.main(["plan", str(tmp_path / "f.csv"), "-c", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert code == 2 and "column 'zip': 1 distinct value(s) have too few digits" in err and "不明" not in err


def test_a_hierarchy_file_is_read_relative_to_the_configuration(tmp_path: Path) -> None:
    (tmp_path / "sex.csv").write_text("level_0,level_1\nF,*\nM,*\n", encoding="utf-8")
    config = parse_config({"k": 2, "columns": {"sex": {"role": "quasi_identifier", "hierarchy": {"file": "sex.csv"}}}},
                          ("sex",), base=tmp_path)
    assert config.column("sex").hierarchy == (("F", "*"), ("M", "*"))


def test_the_prefix_hierarchy_normalizes_width_and_is_a_tree() -> None:
    rows = prefix_rows(["100-0001", "１００－０００２", "〒150-0002", None, "150-0002"], [3, 1])
    assert rows == (("100-0001", "100*", "1*", "*"), ("150-0002", "150*", "1*", "*"),
                    ("〒150-0002", "150*", "1*", "*"), ("１００－０００２", "100*", "1*", "*"))
    parents: dict[str, str] = {}
    for row in rows:
        for child, parent in itertools.pairwise(row[1:]):
            assert parents.setdefault(child, parent) == parent


def _problem_label_by_label(rows: list[tuple[str, ...]]) -> str | None:
    """hierarchy_problem as it was before issue 49, a set per label and level: the reference its
    column-wise rewrite (minutes to seconds on a prefix hierarchy of 600,000 rows) must match."""
    if len({r[-1] for r in rows}) != 1:
        return "a hierarchy has one root (the last level holds one value)"
    if len({r[0] for r in rows}) != len(rows):
        return "a leaf appears in more than one hierarchy row"
    two_parents = 0
    for level in range(len(rows[0]) - 1):
        parents: dict[str, set[str]] = {}
        for row in rows:
            parents.setdefault(row[level], set()).add(row[level + 1])
        two_parents += sum(1 for found in parents.values() if len(found) > 1)
    if two_parents:
        return (f"{two_parents} hierarchy label(s) have more than one parent at the level above "
                "(the rows must form a tree)")
    leaves: dict[str, dict[int, set[str]]] = {}
    for row in rows:
        for level, label in enumerate(row):
            leaves.setdefault(label, {}).setdefault(level, set()).add(row[0])
    differing = sum(1 for at in leaves.values() if len({frozenset(s) for s in at.values()}) > 1)
    if differing:
        return (f"{differing} hierarchy label(s) stand for different leaves at different levels; a label may "
                "repeat across levels only for the same leaves (like 65+ then 65+)")
    return None


def test_the_hierarchy_checks_say_what_they_said_label_by_label() -> None:
    """Random small hierarchies (every problem, and none) and prefix hierarchies of short,
    full-width and marked values: hierarchy_problem's verdict and counts as before issue 49."""
    rng = random.Random(49)
    verdicts: set[str] = set()
    for _ in range(5000):
        depth, alphabet = rng.randint(2, 4), "abcd*"[:rng.randint(2, 5)]
        rows = [(*(rng.choice(alphabet) for _ in range(depth - 1)), "*" if rng.random() < 0.9 else "a")
                for _ in range(rng.randint(1, 7))]
        assert hierarchy_problem(rows) == _problem_label_by_label(rows), rows
        verdicts.add(hierarchy_problem(rows) or "none")
    kinds = ("none", "one root", "more than one hierarchy row", "more than one parent", "different leaves")
    assert all(any(kind in verdict for verdict in verdicts) for kind in kinds)
    for _ in range(2000):
        values = ["".join(rng.choice("01２〒-*¹") for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 8))]
        rows = list(prefix_rows(values, rng.choice([[3, 1], [2], [4, 2, 1]])))
        assert hierarchy_problem(rows) == _problem_label_by_label(rows), values


def test_the_recount_finds_a_thin_class_and_a_class_of_one_value() -> None:
    config = parse(l=2)
    table = Table(("age", "zip", "sex", "diagnosis"), (
        ("0-39", "1*", "F", "flu"), ("0-39", "1*", "F", "cold"),
        ("40+", "1*", "M", "flu")))
    counted = commands.recount(table, config)
    assert counted == {"rows": 3, "classes": 2, "smallest_class": 1, "records_below_k": 1, "least_diverse": 1,
                       "counted": "records", "ok": False}
    assert commands.recount(Table(table.columns, table.rows[:2]), config)["ok"]
    same = Table(table.columns, (table.rows[0], table.rows[0]))
    assert not commands.recount(same, config)["ok"]  # k=2 holds, l=2 does not


def test_inspect_never_proposes_keep_and_takes_the_first_pack_suggestion() -> None:
    table = Table(("郵便番号", "note"), (("100-0001", "x"), ("150-0002", "y")))
    stats = {"columns": [{"name": "郵便番号", "role": "identifier", "reason": "unique"},
                         {"name": "note", "role": "keep", "reason": "free text"}]}
    proposed = commands.proposal(table, stats, hints.select_packs(True, []))
    assert proposed["columns"]["郵便番号"]["role"] == "quasi_identifier"
    assert proposed["columns"]["郵便番号"]["prefix"] == [3, 1]
    assert proposed["columns"]["note"]["role"] == "drop" and "unprotected" in proposed["columns"]["note"]["note"]
    assert proposed["columns"]["note"]["evidence"]["kanon_suggests"]["role"] == "keep"
    # what inspect writes, plan reads back
    assert parse_config(json.loads(json.dumps(proposed)), table.columns, base=Path(".")).k == 5


RECEIPT: dict[str, Any] = {
    "status": "RELEASED", "language": "en",
    "input": {"file": "people.csv", "format": "csv", "rows": 10, "sha256": "ab" * 32},
    "configuration": {"file": "config.json", "sha256": "cd" * 32},
    "output": {"file": "safe.csv", "format": "csv", "rows": 8, "sha256": "ef" * 32, "written": True},
    "release": {"k": 2, "l": 2, "diversity": "distinct", "privacy_unit": None,
                "budget": {"share": 0.2, "unit": "records", "limit": 2, "used": 2},
                "columns": [{"name": "age", "role": "quasi_identifier", "generalizer": "bins", "depth": 2, "level": 1},
                            {"name": "id", "role": "identifier", "pseudonym": True}],
                "loss": {"height": 1.0}, "lattice": {"size": 6, "nodes_evaluated": 3},
                "records": {"in": 10, "out": 8, "suppressed": {"total": 2, "too_small": 2, "not_diverse": 0,
                                                                "missing_value": 0}},
                "rescue": [{"column": "age", "records": 2}], "refused": None},
    "risk_before": {"classes": 9, "records_in_classes_of_1": 8, "records_in_classes_of_2_to_k_minus_1": 2},
    "file_recount": {"rows": 8, "classes": 3, "smallest_class": 2, "records_below_k": 0, "least_diverse": 2,
                     "ok": True},
    "warnings": [],
}


@pytest.mark.parametrize("lang", report.LANGUAGES)
def test_the_receipt_text_says_every_count(lang: str) -> None:
    text = report.render(RECEIPT, lang)
    for fact in ("age", "people.csv", "safe.csv", "abababababababab"):
        assert fact in text
    if lang == "ja":
        assert "入力10件のうち8件" in text and "抑制2件" in text
        assert "ageをもう1段階一般化すると、抑制された2件を救えます" in text
        assert "レコードの20.0%まで（2件）" in text and "仮名化" in text
    else:
        assert "Released 8 of 10 records in classes of at least 2 people, each 2-diverse" in text
        assert "one more generalization step on age would rescue 2 suppressed records" in text
        assert "at most 20.0% of the records (limit 2), used 2" in text


@pytest.mark.parametrize("lang", report.LANGUAGES)
def test_a_refused_or_dry_run_receipt_says_nothing_was_written(lang: str) -> None:
    refused = {**RECEIPT, "status": "REFUSED", "output": {"file": "safe.csv", "written": False},
               "release": {**RECEIPT["release"], "refused": {"check": "records_search", "reason": "k=99 unreachable"}}}
    text = report.render(refused, lang)
    said = "何も書き出していません（k=99 unreachable）" if lang == "ja" else "nothing was written (k=99 unreachable)"
    assert said in text
    dry = {**RECEIPT, "output": {**RECEIPT["output"], "written": False}}
    assert ("--dry-run" if lang == "ja" else "dry run, nothing written") in report.done_sentence(dry, lang)


def test_labels_line_up_in_both_widths() -> None:
    assert report.pad("入力", 8) == "入力    " and report.pad("input", 8) == "input   "
    assert report.pad("a very long label", 4).endswith(" ")


def test_the_recount_without_a_sensitive_column_and_with_entropy() -> None:
    no_sensitive = parse(columns={"diagnosis": "drop"})
    table = Table(("age", "zip", "sex"), (("0-39", "1*", "F"), ("0-39", "1*", "F")))
    assert (commands.recount(table, no_sensitive)["ok"]
            and commands.recount(table, no_sensitive)["least_diverse"] is None)
    entropy = parse(l=2, diversity="entropy")
    skewed = Table(("age", "zip", "sex", "diagnosis"),
                   tuple(("0-39", "1*", "F", d) for d in ("flu", "flu", "flu", "cold")))
    assert commands.recount(skewed, entropy)["least_diverse"] == 2 and not commands.recount(skewed, entropy)["ok"]
    even = Table(skewed.columns, tuple(("0-39", "1*", "F", d) for d in ("flu", "flu", "cold", "cold")))
    assert commands.recount(even, entropy)["ok"]


# --- a column's level in words (item: "suppression at level 0 of 1") -------------------------------------

LEVELS: list[dict[str, Any]] = [
    {"name": "sex", "role": "quasi_identifier", "generalizer": "suppression", "depth": 1, "level": 0},
    {"name": "born", "role": "quasi_identifier", "generalizer": "date", "depth": 3, "level": 3},
    {"name": "zip", "role": "quasi_identifier", "generalizer": "hierarchy", "depth": 3, "level": 1},
    {"name": "pref", "role": "quasi_identifier", "generalizer": "hierarchy", "depth": 2, "level": 2}]


@pytest.mark.parametrize("lang", report.LANGUAGES)
def test_a_column_at_level_0_is_as_recorded_and_at_its_root_one_value(lang: str) -> None:
    receipt = {**RECEIPT, "release": {**RECEIPT["release"], "columns": LEVELS}}
    text = report.render(receipt, lang)
    suppressed = {**receipt, "release": {**receipt["release"], "columns": [{**LEVELS[0], "level": 1}]}}
    if lang == "ja":
        expected = ["sex: 準識別子、元の値のまま（レベル0/1）", "born: 準識別子、すべて「*」に一般化（レベル3/3）",
                    "zip: 準識別子、hierarchy レベル1/3", "pref: 準識別子、すべて階層の最上位に一般化（レベル2/2）"]
        assert "sex: 準識別子、すべて「*」で伏せて公開（レベル1/1）" in report.render(suppressed, lang)
        assert "sexをすべて「*」で伏せて" in report.done_sentence(suppressed, lang)
    else:
        expected = ["sex: quasi-identifier, as recorded (level 0 of 1)",
                    "born: quasi-identifier, fully generalized: * for every record (level 3 of 3)",
                    "zip: quasi-identifier, hierarchy at level 1 of 3",
                    "pref: quasi-identifier, fully generalized: its hierarchy's root for every record (level 2 of 2)"]
        assert "sex: quasi-identifier, suppressed: * for every record (level 1 of 1)" in report.render(suppressed, lang)
        assert "suppressing sex (* for every record)" in report.done_sentence(suppressed, lang)
    for line in expected:
        assert line in text, text
    assert "suppression at level" not in text and "suppression レベル" not in text


def test_the_warehouse_receipt_says_the_same_of_levels() -> None:
    node: dict[str, Any] = {c["name"]: c["level"] for c in LEVELS}
    plan = {"k": 5, "columns": [{k: v for k, v in c.items() if k != "level"} for c in LEVELS],
            "node": node, "records_in": 10, "records_out": 10}
    out = records_receipt({"status": "RELEASED", "release_kind": "records"}, plan)
    text = render_text(out)
    for line in ("sex: quasi_identifier, as recorded (level 0 of 1)",
                 "born: quasi_identifier, fully generalized: * for every record (level 3 of 3)",
                 "zip: quasi_identifier, hierarchy at level 1 of 3"):
        assert line in text, text
    assert "suppression at level" not in text
    assert "born to its root (level 3 of 3)" in out["what_was_done"], out["what_was_done"]
    node["sex"] = 1
    assert "suppressing sex (* for every record)" in records_receipt({"status": "RELEASED"}, plan)["what_was_done"]


# --- findings after the release (item: run repeats plan's findings) ---------------------------------------

FOUND: dict[str, Any] = {
    "leak_checks": ["phone"],
    "leaks": [{"column": "note", "detector": "phone", "count": 2, "checked": 9, "skipped": 1},
              {"column": "zip", "detector": "phone", "count": 1, "checked": 10, "skipped": 0}],
    "proxies": [{"source": "branch", "target": "zip", "support": 40, "groups": 8, "violations": 0},
                {"source": "zip", "target": "ward", "support": 40, "groups": 8, "violations": 0},
                {"source": "sex", "target": "ward", "support": 40, "groups": 2, "violations": 0}],
    "proxy_thresholds": {}, "observations": []}


def test_which_findings_stay_in_the_released_file() -> None:
    config = parse_config({"k": 2, "columns": {"note": "keep", "branch": "keep", "ward": "keep", "zip": {
        "role": "quasi_identifier", "prefix": [3]}, "sex": "quasi_identifier"}},
        ("note", "branch", "ward", "zip", "sex"), base=Path("."))
    after = commands.after_release(FOUND, config, {"zip": 1, "sex": 0})
    # a kept note is published as recorded; a QI's text only at level 0
    assert [leak["in_release"] for leak in after["leaks"]] == [True, False]
    # a kept column giving a generalized QI away is a finding; one a QI at level 0 determines says nothing more
    assert [p["in_release"] for p in after["proxies"]] == [True, True, False]
    assert "in_release" not in FOUND["leaks"][0]  # a copy
    unknown = commands.after_release(FOUND, config, None)  # no release: nothing known, every finding stands
    assert all(f["in_release"] for f in unknown["leaks"] + unknown["proxies"])


@pytest.mark.parametrize("lang", report.LANGUAGES)
def test_finding_lines_name_columns_and_counts(lang: str) -> None:
    config = parse_config({"k": 2, "columns": {"note": "keep", "branch": "keep", "ward": "keep", "zip": {
        "role": "quasi_identifier", "prefix": [3]}, "sex": "quasi_identifier"}},
        ("note", "branch", "ward", "zip", "sex"), base=Path("."))
    lines = report.finding_lines(commands.after_release(FOUND, config, {"zip": 1, "sex": 0}), lang)
    if lang == "ja":
        assert lines[0].startswith("note: 電話番号の形の値が2件（9件を検査）") and "出力に含まれます" in lines[0]
        assert "branchがzipをほぼ決めます" in lines[2]
    else:
        assert lines[0].startswith("note: 2 value(s) hold a phone number (9 checked, 1 empty)")
        assert "in the released file" in lines[0] and "not in the released file" in lines[1]
        assert lines[2].startswith("branch nearly determines zip (0 of 40 rows off, 8 values)")


def test_the_engine_links_the_installed_copy_of_kanon_first_then_the_checkout(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    shipped, checkout = tmp_path / "site-packages" / "dbt_package", tmp_path / "checkout"
    monkeypatch.setattr(engine, "SHIPPED_PACKAGE", shipped)
    monkeypatch.setattr(engine, "CHECKOUT", checkout)
    with pytest.raises(engine.EngineError, match=r"kanon's dbt package is missing.*pip install \./python_helpers"):
        engine.kanon_package()
    for folder in (checkout, shipped):
        (folder / "macros").mkdir(parents=True)
        (folder / "dbt_project.yml").write_text("name: kanon\n")
    assert engine.kanon_package() == shipped
    (shipped / "dbt_project.yml").unlink()  # a copy without its project file is no package
    assert engine.kanon_package() == checkout


def test_an_installation_without_kanons_package_ends_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(engine, "SHIPPED_PACKAGE", tmp_path / "nothing")
    monkeypatch.setattr(engine, "CHECKOUT", tmp_path / "nothing either")
    code = cli.main(["plan", str(EXAMPLE / "people.csv"), "-c", str(EXAMPLE / "config.json")])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "kanon's dbt package is missing" in err, err
