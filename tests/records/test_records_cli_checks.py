"""`kanon-records` (issue 14): every exit code, the planted leaks and proxy found by plan, hint packs
on the command line, pseudonyms with a generated key, a byte-identical rerun and --dry-run.

In-process (`cli.main`), which runs dbt in its process as the script does (kanon_tools.dbt_runner); the example is the
committed one (examples/records_japan). Exit codes 1 and 2 that need no dbt are here too, since
they are what a user meets first.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.cli import records as cli
from kanon_tools.pseudonym_env import pseudonym
from kanon_tools.records.files import read_table
from support import ROOT

pytestmark = pytest.mark.dbt

EXAMPLE = ROOT / "examples" / "records_japan"
PEOPLE = EXAMPLE / "people.csv"


def config(tmp_path: Path, name: str = "config.json", **changes: Any) -> Path:
    """The example's configuration with `changes` (columns={name: spec} merged into its columns)."""
    data = json.loads((EXAMPLE / "config.json").read_text(encoding="utf-8"))
    columns = changes.pop("columns", {})
    data.update(changes)
    data["columns"].update(copy.deepcopy(columns))
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def main(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# --- exit 1 and 2 before any dbt -----------------------------------------------------------------------

def test_exit_1_for_a_missing_or_malformed_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "plan", tmp_path / "nobody.csv", "-c", EXAMPLE / "config.json")
    assert code == 1 and "cannot read" in err
    broken = tmp_path / "broken.csv"
    broken.write_bytes("患者ID,氏名\nP1\n".encode())
    code, _, err = main(capsys, "inspect", broken, "--config-out", tmp_path / "c.json")
    assert code == 1 and "line 2: 1 fields where the header has 2" in err
    assert not (tmp_path / "c.json").exists()


def test_exit_1_when_the_output_cannot_be_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = main(capsys, "keygen", "-o", tmp_path / "no such folder" / "key.txt")
    assert code == 1 and "cannot write" in err


@pytest.mark.parametrize(("changes", "message"), [
    ({"k": 0}, "k must be a whole number of at least 2"),
    ({"columns": {"氏名": "publish"}}, "role must be one of"),
    ({"columns": {"性別": {"role": "quasi_identifier", "bins": [[0, 1]]}}}, "bins cut numbers"),
    ({"columns": {"病名": {"role": "sensitive", "prefix": [3]}}}, "generalizes a quasi_identifier"),
    ({"columns": {"unknown column": "drop"}}, "are not in the file"),
    ({"columns": {"生年月日": {"role": "quasi_identifier", "type": "integer"}}}, "are not integer"),
])
def test_exit_2_for_a_configuration_that_does_not_fit(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      changes: dict[str, Any], message: str) -> None:
    code, _, err = main(capsys, "run", PEOPLE, "-c", config(tmp_path, **changes), "-o", tmp_path / "out.csv")
    assert code == 2 and message in err, err
    assert not (tmp_path / "out.csv").exists()
    # no value in the message: the type misfit is counted, never shown
    assert "1954" not in err and "男" not in err


def test_exit_2_for_an_undeclared_column(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads((EXAMPLE / "config.json").read_text(encoding="utf-8"))
    del data["columns"]["メモ"]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = main(capsys, "run", PEOPLE, "-c", path, "-o", tmp_path / "out.csv")
    assert code == 2 and "'メモ' have no role" in err


def test_exit_2_for_a_pack_reusing_a_builtin_rule_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "mine.json"
    pack.write_text(json.dumps({"pack": "mine", "version": 1, "rules": [
        {"id": "jp.age", "kind": "suggest", "names": ["年齢"], "role": "drop", "why": {"en": "mine"}}]}),
        encoding="utf-8")
    code, _, err = main(capsys, "inspect", PEOPLE, "--config-out", tmp_path / "c.json", "--hint-pack", pack)
    assert code == 2 and "jp.age" in err


def test_exit_2_for_a_pseudonym_without_a_usable_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weak = tmp_path / "weak.txt"
    weak.write_text("abcd\n")
    path = config(tmp_path, columns={"患者ID": {"role": "identifier", "pseudonym": True}})
    code, _, err = main(capsys, "run", PEOPLE, "-c", path, "-o", tmp_path / "out.csv", "--key", weak)
    assert code == 2 and "too short" in err and "abcd" not in err


def test_keygen_writes_an_owner_only_key_and_never_replaces_one(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    key = tmp_path / "key.txt"
    assert main(capsys, "keygen", "-o", key)[0] == 0
    text = key.read_text().strip()
    assert len(text) == 64 and int(text, 16) >= 0 and key.stat().st_mode & 0o777 == 0o600
    code, _, err = main(capsys, "keygen", "-o", key)
    assert code == 1 and "exists" in err and key.read_text().strip() == text
    assert main(capsys, "keygen", "-o", key, "--force")[0] == 0 and key.read_text().strip() != text


# --- through dbt -----------------------------------------------------------------------------------------

def test_exit_3_when_k_cannot_be_reached_nothing_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    output = tmp_path / "out.csv"
    code, out, _ = main(capsys, "run", PEOPLE, "-c", config(tmp_path, k=601), "-o", output,
                        "--report-json", tmp_path / "receipt.json")
    assert code == 3 and not output.exists()
    receipt = json.loads((tmp_path / "receipt.json").read_text(encoding="utf-8"))
    assert receipt["status"] == "REFUSED" and receipt["exit_code"] == 3 and not receipt["output"]["written"]
    assert "k=601" in receipt["release"]["refused"]["reason"] and "Refused: nothing was written" in out


def test_exit_2_for_values_missing_from_a_hierarchy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # kanon would label them with the root; a file release refuses, counted
    path = config(tmp_path, columns={"都道府県": {"role": "quasi_identifier", "hierarchy": {
        "rows": [["北海道", "北", "*"], ["沖縄県", "南", "*"]]}}})
    code, _, err = main(capsys, "plan", PEOPLE, "-c", path)
    assert code == 2 and "are not leaves of its hierarchy" in err and "(10 distinct)" in err
    assert "東京都" not in err


def test_plan_finds_the_planted_leaks_and_proxy(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = config(tmp_path, columns={"メモ": "keep", "市区町村": "keep"})
    monkeypatch.chdir(tmp_path)
    code, out, _ = main(capsys, "plan", PEOPLE, "-c", path, "--format", "json", "--work-dir", "kept")
    assert code == 0  # warnings do not change the exit code
    assert (tmp_path / "kept" / "records.duckdb").exists()  # --work-dir, relative to where the command runs
    found = json.loads(out)["findings"]
    leaks = {(leak["column"], leak["detector"]): leak for leak in found["leaks"]}
    assert set(leaks) == {("メモ", "phone"), ("メモ", "email")}
    assert leaks[("メモ", "phone")]["count"] == 1 and leaks[("メモ", "phone")]["checked"] < 600
    proxies = {(p["source"], p["target"]) for p in found["proxies"]}
    assert ("市区町村", "都道府県") in proxies  # the city gives the generalized prefecture away
    assert "090-2468-1357" not in out and "kenta.example" not in out
    # with the built-in pack off no detector runs, and plan says so
    code, out, _ = main(capsys, "plan", PEOPLE, "-c", path, "--no-builtin-hints")
    assert code == 0 and "no leak checks" in out and "phone" not in out


def test_a_user_pack_adds_suggestions_after_the_builtin_one(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "clinic.json"
    pack.write_text(json.dumps({"pack": "clinic", "version": 1, "rules": [
        {"id": "clinic.diagnosis", "kind": "suggest", "names": ["病名"], "role": "sensitive",
         "why": {"en": "what the extract is about"}},
        {"id": "clinic.sex", "kind": "suggest", "names": ["性別"], "role": "drop", "why": {"en": "later"}}]},
        ensure_ascii=False), encoding="utf-8")
    proposed = tmp_path / "c.json"
    code, _, _ = main(capsys, "inspect", PEOPLE, "--config-out", proposed, "--hint-pack", pack, "--no-builtin-hints")
    columns = json.loads(proposed.read_text(encoding="utf-8"))["columns"]
    assert code == 0 and columns["病名"]["role"] == "sensitive" and columns["性別"]["role"] == "drop"
    assert "prefix" not in columns["郵便番号"]  # no built-in pack: the postal code rule is off
    code, _, _ = main(capsys, "inspect", PEOPLE, "--config-out", proposed, "--hint-pack", pack)
    columns = json.loads(proposed.read_text(encoding="utf-8"))["columns"]
    assert columns["性別"]["role"] == "quasi_identifier"  # the built-in pack's rule comes first
    assert [h["rule"] for h in columns["性別"]["evidence"]["hints"]] == ["jp.sex", "clinic.sex"]


def test_pseudonyms_match_the_warehouse_hmac_and_reruns_are_byte_identical(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KANON_PSEUDONYM_KEY", raising=False)
    key = tmp_path / "key.txt"
    assert main(capsys, "keygen", "-o", key)[0] == 0
    path = config(tmp_path, columns={"患者ID": {"role": "identifier", "pseudonym": True}})
    first = tmp_path / "first.json"
    code, _, err = main(capsys, "run", PEOPLE, "-c", path, "-o", first, "--key", key)
    assert code == 0, err
    released = read_table(first)
    ids = {row[0] for row in read_table(PEOPLE).rows}
    expected = {pseudonym(key.read_text().strip(), i) for i in ids}
    published = {row[released.columns.index("患者ID")] for row in released.rows}
    assert published <= expected and len(published) == len(released.rows)  # pycanon-free: every id one hash
    # the same input, configuration and key: the same bytes; --dry-run measures them and writes nothing
    code, _, _ = main(capsys, "run", PEOPLE, "-c", path, "-o", tmp_path / "second.json", "--key", key, "--dry-run",
                      "--report-json", tmp_path / "receipt.json")
    receipt = json.loads((tmp_path / "receipt.json").read_text(encoding="utf-8"))
    assert code == 0 and not (tmp_path / "second.json").exists() and not receipt["output"]["written"]
    assert receipt["output"]["sha256"] == hashlib.sha256(first.read_bytes()).hexdigest()
    assert os.environ.get("KANON_PSEUDONYM_KEY") is None


def test_odd_names_nulls_dirty_ids_and_a_bom_release_safely(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hostile file: quotes, spaces, dots and semicolons in names, a BOM, full-width digits in an
    integer column, NULL quasi-identifiers (missing_value_policy star) and ids with stray spaces."""
    columns = ['Patient "ID"', "zip code", "age.years", "sex;gender", "note's"]
    rows = []
    for i in range(60):
        age = str(20 + (i * 7) % 50)
        rows.append([f" p{i % 57} ", f"{10 + i % 4}{i % 10}-00{i % 3}", age.translate(str.maketrans("0123456789",
                     "０１２３４５６７８９")) if i % 5 == 0 else age, "" if i % 11 == 0 else "FM"[i % 2], f"n{i % 3}"])
    text = ",".join('"' + c.replace('"', '""') + '"' for c in columns) + "\r\n"
    text += "".join(",".join(row) + "\r\n" for row in rows)
    source = tmp_path / "odd.export"  # no extension to go by: --in-format says it
    source.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    spec = {"version": 1, "k": 3, "max_suppression": 0.1, "columns": {
        'Patient "ID"': "drop", "zip code": {"role": "quasi_identifier", "prefix": [2]},
        "age.years": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 30, 45, 60], [0, 45]]},
        "sex;gender": "quasi_identifier", "note's": "keep"}}
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    code, _, err = main(capsys, "run", source, "-c", path, "-o", tmp_path / "safe.out", "--out-format", "xml",
                        "--report-json", tmp_path / "receipt.json")
    assert code == 2 and "cannot tell the format" in err  # without --in-format
    code, _, err = main(capsys, "run", source, "--in-format", "csv", "-c", path, "-o", tmp_path / "safe.out",
                        "--out-format", "xml", "--report-json", tmp_path / "receipt.json")
    assert code == 0, err
    released = read_table(tmp_path / "safe.out", "xml")
    assert released.columns == ("zip code", "age.years", "sex;gender", "note's")
    classes: dict[tuple[str | None, ...], int] = {}
    for row in released.rows:
        classes[row[:3]] = classes.get(row[:3], 0) + 1
    assert min(classes.values()) >= 3
    receipt = json.loads((tmp_path / "receipt.json").read_text(encoding="utf-8"))
    assert receipt["file_recount"]["ok"] and receipt["release"]["records"]["in"] == 60
    assert len(released.rows) == 60 - receipt["release"]["records"]["suppressed"]["total"]
