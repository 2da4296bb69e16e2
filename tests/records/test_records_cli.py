"""`kanon-records` end to end (issue 14): the committed 600-person Japanese example through
inspect -> plan -> run in CSV, JSON and XML, on the embedded DuckDB through dbt; every released
file checked with pycanon and by our own recount; every receipt scanned for every input cell.

The three formats run in one module fixture (each command is a few dbt starts); the assertions
read what it left. tests/records/test_records_cli_checks.py has the exit codes, leaks, proxies, hint
packs and pseudonyms; tests/records/test_records_cli_units.py the parts that need no dbt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from kanon_tools.records import example
from kanon_tools.records.files import parse_table, read_table, render_table
from pycanon import anonymity
from support import ROOT
from support.records import Command, file_cells, records

pytestmark = pytest.mark.dbt

EXAMPLE = ROOT / "examples" / "records_japan"
FORMATS = ("csv", "json", "xml")
QIS = ["生年月日", "性別", "郵便番号", "都道府県"]


@dataclass
class RoundTrip:
    folder: Path
    source: Path
    inspect: Command
    proposed: dict[str, Any]
    plan_json: dict[str, Any]
    run: Command


@dataclass
class Japanese:
    plan: Command  # plan's text, in Japanese
    run: Command


@pytest.fixture(scope="module")
def round_trips(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RoundTrip]:
    """inspect -> plan -> run in each format (plan as JSON; its text is the Japanese fixture's), each
    command's main() in this process (tests/host/test_install.py runs the installed script as a process,
    from a fresh virtualenv, as a user runs it)."""
    people = read_table(EXAMPLE / "people.csv")
    config = EXAMPLE / "config.json"
    out = {}
    for fmt in FORMATS:
        folder = tmp_path_factory.mktemp(f"records_{fmt}")
        source = folder / f"people.{fmt}"
        source.write_bytes(render_table(people, fmt, seed=b"input order"))
        inspect = records("inspect", source, "--config-out", folder / "proposed.json", cwd=folder)
        proposed = json.loads((folder / "proposed.json").read_text(encoding="utf-8")) if inspect.code == 0 else {}
        plan = records("plan", source, "-c", config, "--format", "json", cwd=folder)
        assert plan.code == 0, plan.stderr
        run = records("run", source, "-c", config, "-o", folder / f"safe.{fmt}", "--report-json",
                      folder / "receipt.json", "--report-text", folder / "receipt.txt", cwd=folder)
        out[fmt] = RoundTrip(folder, source, inspect, proposed, json.loads(plan.stdout), run)
    return out


@pytest.fixture(scope="module")
def japanese(round_trips: dict[str, RoundTrip]) -> Japanese:
    """The CSV round trip's plan and run again with --lang ja (the run to another file)."""
    trip = round_trips["csv"]
    config = EXAMPLE / "config.json"
    plan = records("plan", trip.source, "-c", config, "--lang", "ja", cwd=trip.folder)
    run = records("run", trip.source, "-c", config, "-o", trip.folder / "safe_ja.csv", "--lang", "ja",
                  "--report-json", trip.folder / "receipt_ja.json", cwd=trip.folder)
    return Japanese(plan, run)


def test_the_committed_example_is_what_the_generator_writes() -> None:
    assert (EXAMPLE / "people.csv").read_bytes() == example.render()
    assert len(read_table(EXAMPLE / "people.csv").rows) == 600


@pytest.mark.parametrize("fmt", FORMATS)
def test_inspect_proposes_roles_and_generalizers_from_the_builtin_pack(round_trips: dict[str, RoundTrip],
                                                                     fmt: str) -> None:
    trip = round_trips[fmt]
    assert trip.inspect.code == 0, trip.inspect.stderr
    columns = trip.proposed["columns"]
    assert list(columns) == list(example.COLUMNS)
    named = ("氏名", "フリガナ", "生年月日", "性別", "郵便番号", "都道府県")
    assert {name: columns[name]["role"] for name in named} == {
        "氏名": "identifier", "フリガナ": "identifier", "生年月日": "quasi_identifier", "性別": "quasi_identifier",
        "郵便番号": "quasi_identifier", "都道府県": "quasi_identifier"}
    assert columns["郵便番号"]["prefix"] == [3, 1]
    assert columns["生年月日"]["type"] == "date" and columns["生年月日"]["date"] == ["month", "year"]
    assert len(columns["都道府県"]["hierarchy"]["rows"]) == 47
    assert columns["郵便番号"]["evidence"]["hints"][0]["rule"] == "jp.postal_code"
    # the full-width postal codes of the example are observed (normalize before counting)
    assert [o["check"] for o in columns["郵便番号"]["evidence"]["observations"]] == ["mixed_width"]
    assert all(spec["role"] != "keep" for spec in columns.values())  # never proposed: it publishes unprotected


@pytest.mark.parametrize("fmt", FORMATS)
def test_plan_reports_lattice_budget_and_level_0_risk(round_trips: dict[str, RoundTrip], fmt: str) -> None:
    trip = round_trips[fmt]
    plan = trip.plan_json["plan"]
    assert plan["lattice_size"] == 3 * 2 * 4 * 4 and plan["quasi_identifiers"] == QIS
    assert plan["budget"] == {"share": 0.05, "unit": "records", "limit": 30}
    assert plan["risk_profile"]["records_in_classes_of_1"] == 600  # every patient unique as handed in
    assert [o["column"] for o in trip.plan_json["findings"]["observations"]] == ["郵便番号"]  # mixed widths


def test_plan_in_japanese(japanese: Japanese) -> None:
    assert japanese.plan.code == 0, japanese.plan.stderr
    assert "1人だけのクラスに600件" in japanese.plan.stdout and "格子" in japanese.plan.stdout


@pytest.mark.parametrize("fmt", FORMATS)
def test_run_releases_a_k_anonymous_l_diverse_file(round_trips: dict[str, RoundTrip], fmt: str) -> None:
    trip = round_trips[fmt]
    assert trip.run.code == 0, trip.run.stderr
    released = read_table(trip.folder / f"safe.{fmt}")
    # identifiers and dropped columns gone
    assert released.columns == ("生年月日", "性別", "郵便番号", "都道府県", "病名")
    frame = pd.DataFrame(list(released.rows), columns=list(released.columns))
    assert anonymity.k_anonymity(frame, QIS) >= 5
    assert anonymity.l_diversity(frame, QIS, ["病名"]) >= 2
    receipt = json.loads((trip.folder / "receipt.json").read_text(encoding="utf-8"))
    assert receipt["status"] == "RELEASED" and receipt["exit_code"] == 0
    suppressed = receipt["release"]["records"]["suppressed"]["total"]
    assert receipt["release"]["records"] == {**receipt["release"]["records"], "in": 600, "out": 600 - suppressed}
    assert len(released.rows) == 600 - suppressed and suppressed <= 30
    recount = receipt["file_recount"]
    assert recount["ok"] and recount["records_below_k"] == 0 and recount["smallest_class"] >= 5
    assert receipt["risk_before"]["records_in_classes_of_1"] == 600
    assert (trip.folder / f"safe.{fmt}").stat().st_mode & 0o777 == 0o600


def test_every_format_publishes_the_same_records(round_trips: dict[str, RoundTrip], japanese: Japanese) -> None:
    tables = {fmt: read_table(trip.folder / f"safe.{fmt}") for fmt, trip in round_trips.items()}
    assert len({tuple(sorted(t.rows, key=str)) for t in tables.values()}) == 1
    # a rerun gives the same bytes: the language changes the receipt only
    folder = round_trips["csv"].folder
    assert japanese.run.code == 0, japanese.run.stderr
    assert (folder / "safe.csv").read_bytes() == (folder / "safe_ja.csv").read_bytes()


def test_rows_are_shuffled_not_in_the_inputs_order(round_trips: dict[str, RoundTrip]) -> None:
    trip = round_trips["csv"]
    source, released = read_table(trip.source), read_table(trip.folder / "safe.csv")
    sex = source.columns.index("性別")
    assert [r[1] for r in released.rows] != [r[sex] for r in source.rows][:len(released.rows)]


def test_the_japanese_receipt_says_the_same_counts(round_trips: dict[str, RoundTrip], japanese: Japanese) -> None:
    folder = round_trips["csv"].folder
    english = json.loads((folder / "receipt.json").read_text(encoding="utf-8"))
    receipt = json.loads((folder / "receipt_ja.json").read_text(encoding="utf-8"))
    assert receipt["language"] == "ja" and receipt["release"]["records"] == english["release"]["records"]
    assert "実施内容" in japanese.run.stdout and "公開しました" in receipt["summary"]
    assert f"入力600件のうち{english['release']['records']['out']}件" in receipt["summary"]


def test_no_receipt_holds_an_input_value(round_trips: dict[str, RoundTrip], japanese: Japanese) -> None:
    cells = file_cells(EXAMPLE / "people.csv")
    assert len(cells) > 1500  # ids, names, readings, dates, codes, memos...
    folder = round_trips["csv"].folder
    texts = {"receipt_ja.json": (folder / "receipt_ja.json").read_text(encoding="utf-8"),
             "Japanese output": japanese.plan.stdout + japanese.run.stdout}
    for fmt, trip in round_trips.items():
        texts[f"{fmt} receipt.json"] = (trip.folder / "receipt.json").read_text(encoding="utf-8")
        texts[f"{fmt} receipt.txt"] = (trip.folder / "receipt.txt").read_text(encoding="utf-8")
        texts[f"{fmt} output"] = trip.run.stdout + trip.inspect.stdout + json.dumps(trip.plan_json, ensure_ascii=False)
        texts[f"{fmt} proposed configuration"] = json.dumps(
            {name: spec["evidence"] for name, spec in trip.proposed["columns"].items()}, ensure_ascii=False)
    for name, text in texts.items():
        leaked = sorted(c for c in cells if c in text and c not in example.COLUMNS)
        assert not leaked, f"{name} holds {len(leaked)} input value(s)"


def test_the_scan_would_see_a_leaked_value(round_trips: dict[str, RoundTrip]) -> None:
    # the check above can fail: a receipt that held a patient's name would be caught
    cells = file_cells(EXAMPLE / "people.csv")
    planted = (round_trips["csv"].folder / "receipt.txt").read_text(encoding="utf-8") + read_table(
        EXAMPLE / "people.csv").rows[5][1]
    assert any(c in planted for c in cells)


def test_parse_of_each_released_file_round_trips_its_bytes(round_trips: dict[str, RoundTrip]) -> None:
    for fmt, trip in round_trips.items():
        data = (trip.folder / f"safe.{fmt}").read_bytes()
        table = parse_table(data, fmt, name=f"safe.{fmt}")
        receipt = json.loads((trip.folder / "receipt.json").read_text(encoding="utf-8"))
        assert render_table(table, fmt, seed=b"kanon") == data  # the configuration's shuffle_seed
        assert receipt["output"]["rows"] == len(table.rows)
