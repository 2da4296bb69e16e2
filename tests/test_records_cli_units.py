"""`kanon-records`' parts that need no dbt (issue 14): the configuration's checks, the prefix
hierarchy, the recount of a finished file, the proposal inspect makes, and the receipts' text in
both languages, scanned for the values they must not hold."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.records import cli, hints, report
from kanon_tools.records.config import ConfigError, parse_config, prefix_rows
from kanon_tools.records.files import Table

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
])
def test_a_misfit_is_named_by_key_and_column(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=None) as raised:
        parse(**changes)
    assert message in str(raised.value)


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


def test_the_recount_finds_a_thin_class_and_a_class_of_one_value() -> None:
    config = parse(l=2)
    table = Table(("age", "zip", "sex", "diagnosis"), (
        ("0-39", "1*", "F", "flu"), ("0-39", "1*", "F", "cold"),
        ("40+", "1*", "M", "flu")))
    counted = cli.recount(table, config)
    assert counted == {"rows": 3, "classes": 2, "smallest_class": 1, "records_below_k": 1, "least_diverse": 1,
                       "counted": "records", "ok": False}
    assert cli.recount(Table(table.columns, table.rows[:2]), config)["ok"]
    same = Table(table.columns, (table.rows[0], table.rows[0]))
    assert not cli.recount(same, config)["ok"]  # k=2 holds, l=2 does not


def test_inspect_never_proposes_keep_and_takes_the_first_pack_suggestion() -> None:
    table = Table(("郵便番号", "note"), (("100-0001", "x"), ("150-0002", "y")))
    stats = {"columns": [{"name": "郵便番号", "role": "identifier", "reason": "unique"},
                         {"name": "note", "role": "keep", "reason": "free text"}]}
    proposed = cli.proposal(table, stats, hints.select_packs(True, []))
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
    assert cli.recount(table, no_sensitive)["ok"] and cli.recount(table, no_sensitive)["least_diverse"] is None
    entropy = parse(l=2, diversity="entropy")
    skewed = Table(("age", "zip", "sex", "diagnosis"),
                   tuple(("0-39", "1*", "F", d) for d in ("flu", "flu", "flu", "cold")))
    assert cli.recount(skewed, entropy)["least_diverse"] == 2 and not cli.recount(skewed, entropy)["ok"]
    even = Table(skewed.columns, tuple(("0-39", "1*", "F", d) for d in ("flu", "flu", "cold", "cold")))
    assert cli.recount(even, entropy)["ok"]
