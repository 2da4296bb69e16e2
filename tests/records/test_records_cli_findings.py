"""`kanon-records` on a file like a new user's (name, phone, e-mail, postal code, prefecture, birth
date, age, gender, occupation, income, a free-text note, a branch code), run as a user runs it:

- an input with no record (a header only, `[]`, XML without a record) is refused like an empty file;
- `run` repeats every leak and proxy `plan` finds, on stderr and in the receipt (JSON and text,
  en and ja), and `--refuse-on-findings` refuses with exit 3, writing nothing;
- `inspect` proposes `income` sensitive, never an age, and the pack's e-mail rule names `email`;
- a configuration kanon would refuse is refused before dbt starts (no working folder made).

The dbt-starting tests share one module fixture (inspect, plan, two runs); the others are marked
nothing and start no dbt.
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.records.files import Table, read_table, render_table
from kanon_tools.records.identifiers import my_number_valid
from support.records import Command, file_cells, records

SCRIPT = Path(sys.executable).parent / "kanon-records"
COLUMNS = ("name", "phone", "email", "postal_code", "prefecture", "birth_date", "age", "gender", "occupation",
           "income", "note", "branch_code")
PREFECTURES = ("北海道", "宮城県", "東京都", "愛知県", "大阪府", "広島県", "香川県", "福岡県")
FAMILY = ("佐藤", "鈴木", "高橋", "田中", "伊藤", "渡辺", "山本", "中村", "小林", "加藤")
GIVEN = ("翔太", "美咲", "大輔", "陽子", "健一", "由美", "拓也", "恵", "直樹", "花子")
JOBS = ("会社員", "公務員", "自営業", "学生", "パート", "無職", "医師", "教員")
NOTES = ("特記事項なし", "次回は3か月後", "紹介状あり", "書類確認済み", "来店予約あり")
BIG, SMALL = (2, 3, 4, 7), (0, 1, 5, 6)  # indices in PREFECTURES
ROWS = 400
PHONES_IN_NOTES, EMAILS_IN_NOTES, MY_NUMBERS_IN_NOTES = 4, 3, 2


def _my_number(rng: random.Random) -> str:
    body = "".join(rng.choice("0123456789") for _ in range(11))
    return next(body + d for d in "0123456789" if my_number_valid(body + d))


def people(n: int = ROWS, seed: int = 20000) -> Table:
    """n synthetic people; the note holds a few phone numbers, e-mails and My Numbers, and each
    branch code belongs to one prefecture (5 branches per prefecture). Half the prefectures hold
    2 % of the people each: too few for k=10 within the budget, so the release generalizes the
    prefecture (each is its region's only one here: to the root, as the user saw)."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        prefecture = SMALL[i % 50] if i % 50 < len(SMALL) else rng.choice(BIG)
        year, month, day = rng.randint(1940, 2005), rng.randint(1, 12), rng.randint(1, 28)
        # income in 万円, as surveys ask it: short numbers, mostly far above any age
        income = 0 if i % 20 == 0 else rng.randint(1000, 2000) if i % 50 == 1 else rng.randint(150, 980)
        note = rng.choice(NOTES)
        if i < PHONES_IN_NOTES:
            note += f" 連絡先 090-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}"
        elif i < PHONES_IN_NOTES + EMAILS_IN_NOTES:
            note += f" メール kenta{i}.example@mail.example.jp"
        elif i < PHONES_IN_NOTES + EMAILS_IN_NOTES + MY_NUMBERS_IN_NOTES:
            note += f" 個人番号 {_my_number(rng)}"
        rows.append((
            f"{rng.choice(FAMILY)} {rng.choice(GIVEN)}",
            f"0{rng.choice('3456789')}-{rng.randint(1000, 9999)}-{rng.randint(1000, 9999)}",
            f"user{i:05d}@example.com",
            f"{rng.randint(100, 999)}-{rng.randint(0, 9999):04d}",
            PREFECTURES[prefecture],
            f"{year:04d}-{month:02d}-{day:02d}",
            str(2025 - year),
            rng.choice("男女"),
            rng.choice(JOBS),
            str(income),
            note,
            f"B{prefecture * 5 + rng.randrange(5):02d}",
        ))
    return Table(COLUMNS, tuple(rows))


def config(**changes: Any) -> dict[str, Any]:
    """The user's configuration: the note and the branch code kept, the prefecture generalized by region."""
    rows = [[p, b, "*"] for p, b in zip(PREFECTURES, ("北海道", "東北", "関東", "中部", "近畿", "中国", "四国", "九州"),
                                         strict=True)]
    columns: dict[str, Any] = {
        "name": "identifier", "phone": "identifier", "email": "identifier", "postal_code": "drop",
        "prefecture": {"role": "quasi_identifier", "hierarchy": {"rows": rows}},
        "birth_date": "drop",
        "age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 20, 40, 60, 80], [0, 40, 80]]},
        "gender": "quasi_identifier", "occupation": "drop", "income": "sensitive",
        "note": "keep", "branch_code": "keep"}
    columns.update(changes.pop("columns", {}))
    return {"version": 1, "k": 10, "max_suppression": 0.05, "columns": columns, **changes}


def write_config(path: Path, **changes: Any) -> Path:
    path.write_text(json.dumps(config(**changes), ensure_ascii=False), encoding="utf-8")
    return path


# --- 1. an input with no record, refused as an empty file is, before any dbt ---------------------------

@pytest.mark.parametrize(("name", "data"), [
    ("header_only.csv", ",".join(COLUMNS).encode() + b"\r\n"),
    ("empty.csv", b""),
    ("empty.json", b"[]"),
    ("empty.xml", b"<records></records>"),
])
def test_an_input_without_records_is_refused_like_an_empty_file(tmp_path: Path, name: str, data: bytes) -> None:
    source = tmp_path / name
    source.write_bytes(data)
    path = write_config(tmp_path / "config.json", columns={
        "postal_code": {"role": "quasi_identifier", "prefix": [3, 1]}})
    commands: list[tuple[str, list[str | Path]]] = [
        ("inspect", ["--config-out", tmp_path / "proposed.json"]), ("plan", ["-c", path]),
        ("run", ["-c", path, "-o", tmp_path / "out.csv"])]
    for verb, args in commands:
        done = records(verb, source, *args, "--work-dir", tmp_path / "work", cwd=tmp_path)
        assert done.code == 1, (verb, done.stderr)
        assert "Traceback" not in done.stderr and done.stderr.startswith(f"kanon records: {name}"), done.stderr
        assert "no record" in done.stderr or "is empty" in done.stderr, done.stderr
        assert not (tmp_path / "work").exists() and not (tmp_path / "out.csv").exists()
        assert not (tmp_path / "proposed.json").exists()


# --- 5. a configuration kanon would refuse: exit 2 before any dbt --------------------------------------

@pytest.mark.parametrize(("columns", "message"), [
    ({"age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 20, 40, 60, 80], [0, 50]]}},
     "column 'age': bins list 2 keeps edge(s) not in list 1"),
    ({"age": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 40, 20]]}},
     "column 'age': bins list 1 must be strictly increasing"),
    ({"birth_date": {"role": "quasi_identifier", "type": "date", "date": ["year", "month"]}},
     "column 'birth_date': date must list levels among day, month, quarter, year, each once, finest first"),
    ({"postal_code": {"role": "quasi_identifier", "hierarchy": {"rows": [["10100", "10101", "*"],
                                                                         ["10101", "10100", "*"]]}}},
     "column 'postal_code': 2 hierarchy label(s) stand for different leaves at different levels"),
    ({"gender": {"role": "quasi_identifier", "hierarchy": {"rows": [["男", " ", "*"], ["女", " ", "*"]]}}},
     "column 'gender': every hierarchy row needs a leaf and at least one level above it, as non-blank strings"),
])
def test_a_configuration_kanon_would_refuse_is_refused_before_dbt(tmp_path: Path, columns: dict[str, Any],
                                                                   message: str) -> None:
    source = tmp_path / "people.csv"
    source.write_bytes(render_table(people(60), "csv", seed=b"input"))
    work = tmp_path / "work"
    done = records("run", source, "-c", write_config(tmp_path / "c.json", columns=columns), "-o",
                   tmp_path / "out.csv", "--work-dir", work, cwd=tmp_path)
    assert done.code == 2 and message in done.stderr, done.stderr
    assert not work.exists() and not (tmp_path / "out.csv").exists()  # no working folder: dbt never started


def test_run_reads_the_hint_packs_as_plan_does(tmp_path: Path) -> None:
    source = tmp_path / "people.csv"
    source.write_bytes(render_table(people(60), "csv", seed=b"input"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pack": "bad", "version": 1, "rules": [{"id": "jp.age", "kind": "suggest",
                                                                          "names": ["x"], "role": "drop",
                                                                          "why": {"en": "x"}}]}), encoding="utf-8")
    path = write_config(tmp_path / "c.json")
    done = records("run", source, "-c", path, "-o", tmp_path / "out.csv", "--hint-pack", bad,
                   "--work-dir", tmp_path / "work", cwd=tmp_path)
    assert done.code == 2 and "reuses rule id 'jp.age'" in done.stderr, done.stderr
    assert not (tmp_path / "work").exists()
    help_text = records("run", "--help", cwd=tmp_path).stdout
    assert "--no-builtin-hints" in help_text and "--refuse-on-findings" in help_text


# --- through dbt: inspect, plan and two runs of the user's file -------------------------------------------

@dataclass
class Session:
    folder: Path
    source: Path
    proposed: dict[str, Any]
    plan: dict[str, Any]
    run: Command
    receipt: dict[str, Any]
    receipt_text: str
    refused: Command
    refused_receipt: dict[str, Any]
    refused_text: str


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    folder = tmp_path_factory.mktemp("records_findings")
    source = folder / "people.csv"
    source.write_bytes(render_table(people(), "csv", seed=b"input order"))
    path = write_config(folder / "config.json")
    inspect = records("inspect", source, "--config-out", folder / "proposed.json", cwd=folder)
    assert inspect.code == 0, inspect.stderr
    plan = records("plan", source, "-c", path, "--format", "json", cwd=folder)
    assert plan.code == 0, plan.stderr
    run = records("run", source, "-c", path, "-o", folder / "safe.csv", "--report-json", folder / "receipt.json",
                  "--report-text", folder / "receipt.txt", cwd=folder)
    refused = records("run", source, "-c", path, "-o", folder / "refused.csv", "--lang", "ja", "--refuse-on-findings",
                      "--report-json", folder / "refused.json", "--report-text", folder / "refused.txt", cwd=folder)

    def text(name: str) -> str:
        return (folder / name).read_text(encoding="utf-8") if (folder / name).exists() else ""

    return Session(folder, source, json.loads(text("proposed.json")), json.loads(plan.stdout), run,
                   json.loads(text("receipt.json") or "{}"), text("receipt.txt"), refused,
                   json.loads(text("refused.json") or "{}"), text("refused.txt"))


def _leaks(found: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(leak["column"], leak["detector"]): leak["count"] for leak in found["leaks"]}


def _proxies(found: dict[str, Any]) -> set[tuple[str, str]]:
    return {(p["source"], p["target"]) for p in found["proxies"]}


@pytest.mark.dbt
def test_run_repeats_every_leak_and_proxy_plan_found(session: Session) -> None:
    assert session.run.code == 0, session.run.stderr  # warnings do not change the exit code
    planned = session.plan["findings"]
    assert _leaks(planned) == {("note", "phone"): PHONES_IN_NOTES, ("note", "email"): EMAILS_IN_NOTES,
                               ("note", "my_number"): MY_NUMBERS_IN_NOTES}
    assert ("branch_code", "prefecture") in _proxies(planned)
    found = session.receipt["findings"]
    assert _leaks(found) == _leaks(planned) and _proxies(found) == _proxies(planned)
    # what the file publishes: the note as recorded; the prefecture generalized, which the branch code gives back
    level = {c["name"]: c.get("level") for c in session.receipt["release"]["columns"]}
    assert level["prefecture"] >= 1
    assert all(leak["in_release"] for leak in found["leaks"])
    assert all(p["in_release"] for p in found["proxies"] if p["source"] == "branch_code")
    for text in (session.run.stderr, session.receipt_text):
        assert "note: 4 value(s) hold a phone number" in text and "note: 2 value(s) hold a My Number" in text, text
        assert "branch_code nearly determines prefecture" in text, text
    assert (session.folder / "safe.csv").exists()


@pytest.mark.dbt
def test_refuse_on_findings_exits_3_and_writes_nothing_in_japanese(session: Session) -> None:
    assert session.refused.code == 3, session.refused.stderr
    assert not (session.folder / "refused.csv").exists()
    receipt = session.refused_receipt
    assert receipt["status"] == "REFUSED" and receipt["exit_code"] == 3 and not receipt["output"]["written"]
    assert receipt["refused"]["check"] == "findings"
    assert _leaks(receipt["findings"]) == _leaks(session.plan["findings"])
    for text in (session.refused.stderr, session.refused_text):
        assert "note: 電話番号の形の値が4件" in text and "branch_codeがprefectureをほぼ決めます" in text, text
    assert "公開を拒否しました" in session.refused_text and "検出事項" in session.refused_text


@pytest.mark.dbt
def test_inspect_proposes_income_sensitive_and_names_the_email_column(session: Session) -> None:
    columns = session.proposed["columns"]
    income = columns["income"]
    assert income["role"] == "sensitive" and "bins" not in income
    assert [h["rule"] for h in income["evidence"]["hints"]] == ["jp.sensitive"]  # never jp.age
    assert columns["email"]["role"] == "identifier"
    assert columns["email"]["evidence"]["hints"][0]["rule"] == "jp.email_column"
    age = columns["age"]["evidence"]["hints"][0]
    assert age["rule"] == "jp.age" and age["range_share"] == 1.0 and columns["age"]["bins"]


@pytest.mark.dbt
def test_the_receipts_say_how_each_column_is_published(session: Session) -> None:
    levels = {c["name"]: c for c in session.receipt["release"]["columns"] if "level" in c}
    gender = levels["gender"]
    said = "as recorded" if gender["level"] == 0 else "suppressed: * for every record"
    assert f"gender: quasi-identifier, {said}" in session.receipt_text, session.receipt_text
    assert "suppression at level" not in session.receipt_text


@pytest.mark.dbt
def test_nothing_printed_or_written_holds_an_input_value(session: Session) -> None:
    cells = file_cells(session.source)
    assert len(cells) > 1000
    texts = {"run": session.run.stdout + session.run.stderr, "refused": session.refused.stdout + session.refused.stderr,
             "receipt.json": json.dumps(session.receipt, ensure_ascii=False), "receipt.txt": session.receipt_text,
             "refused.json": json.dumps(session.refused_receipt, ensure_ascii=False),
             "refused.txt": session.refused_text, "plan": json.dumps(session.plan, ensure_ascii=False),
             "evidence": json.dumps({n: s["evidence"] for n, s in session.proposed["columns"].items()},
                                    ensure_ascii=False)}
    for name, text in texts.items():
        leaked = sorted(c for c in cells if c in text and c not in COLUMNS)
        assert not leaked, f"{name} holds {len(leaked)} input value(s)"
    assert read_table(session.folder / "safe.csv").columns == ("prefecture", "age", "gender", "income", "note",
                                                               "branch_code")
