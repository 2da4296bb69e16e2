"""Hint packs (issue 14): the built-in Japanese pack, user packs, their order and validation.

Pure Python: no dbt, no database. The prefecture-to-block table below is written out separately
from the pack's JSON, so a wrong row in the pack fails the test.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.records.hints import (
    BUILTIN_PATH,
    Evidence,
    HintPackError,
    LeakRule,
    ObserveRule,
    Pack,
    SuggestRule,
    builtin_pack,
    era_date,
    leak_rules,
    load_pack,
    observe_column,
    parse_pack,
    scan_column,
    select_packs,
    suggest_column,
)
from kanon_tools.records.identifiers import KINDS, my_number_valid

# 八地方区分, written independently of the pack (short names; 都/府/県 added below).
BLOCKS = {
    "北海道": ["北海道"],
    "東北": ["青森", "岩手", "宮城", "秋田", "山形", "福島"],
    "関東": ["茨城", "栃木", "群馬", "埼玉", "千葉", "東京", "神奈川"],
    "中部": ["新潟", "富山", "石川", "福井", "山梨", "長野", "岐阜", "静岡", "愛知"],
    "近畿": ["三重", "滋賀", "京都", "大阪", "兵庫", "奈良", "和歌山"],
    "中国": ["鳥取", "島根", "岡山", "広島", "山口"],
    "四国": ["徳島", "香川", "愛媛", "高知"],
    "九州": ["福岡", "佐賀", "長崎", "熊本", "大分", "宮崎", "鹿児島", "沖縄"],
}


def _official(short: str) -> str:
    if short == "北海道":
        return short
    if short == "東京":
        return "東京都"
    if short in ("京都", "大阪"):
        return short + "府"
    return short + "県"


def _ids(suggestions: Any) -> list[str]:
    return [s.rule_id for s in suggestions]


def _user_pack(tmp_path: Path, rules: list[dict[str, Any]], name: str = "clinic",
               hierarchies: dict[str, Any] | None = None, file: str = "clinic.json") -> Path:
    data: dict[str, Any] = {"pack": name, "version": 1, "rules": rules}
    if hierarchies is not None:
        data["hierarchies"] = hierarchies
    path = tmp_path / file
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


WARD = {"id": "clinic.ward", "kind": "suggest", "names": ["病棟", "ward"], "role": "quasi_identifier",
        "why": {"en": "The ward narrows down who was admitted when."}}


@pytest.fixture(scope="module")
def japan() -> tuple[Pack, ...]:
    return (builtin_pack(),)


def _planted_my_number() -> str:
    """A 12-digit number with a right check digit, found by trying the last digit (no fixed example)."""
    for last in "0123456789":
        if my_number_valid("12345678901" + last):
            return "12345678901" + last
    raise AssertionError("no check digit")


# ---------------------------------------------------------------------------------------------
# The built-in pack


def test_builtin_pack_loads_and_validates() -> None:
    pack = builtin_pack()
    assert pack.name == "japan" and pack.version == 1 and pack.builtin
    ids = [r.id for r in pack.rules]
    assert len(ids) == len(set(ids))
    for expected in ("jp.postal_code", "jp.prefecture", "jp.birth_date", "jp.age", "jp.name",
                     "jp.my_number_column", "jp.phone_column"):
        assert expected in ids
    assert sorted(leak_rules((pack,))) == sorted(KINDS)
    assert {r.check for r in pack.rules if isinstance(r, ObserveRule)} == {
        "mixed_width", "era_date", "qi_declared_otherwise"}
    for rule in pack.rules:
        assert rule.why["en"].strip() and rule.why["ja"].strip(), rule.id
    # the file as shipped parses to the same pack by the public entry point
    data = json.loads(BUILTIN_PATH.read_text(encoding="utf-8"))
    assert parse_pack(data, "copy", builtin=True).rules == pack.rules


def test_builtin_pack_is_held_to_both_languages() -> None:
    data = json.loads(BUILTIN_PATH.read_text(encoding="utf-8"))
    del data["rules"][0]["why"]["ja"]
    with pytest.raises(HintPackError, match=r"rules\[0\] \('jp.postal_code'\): 'why' lacks 'ja'"):
        parse_pack(data, "japan.json", builtin=True)
    parse_pack(data, "japan.json", builtin=False)  # a user pack needs only en


def test_prefecture_hierarchy_is_the_eight_blocks() -> None:
    rows = builtin_pack().hierarchies["prefecture_region"]
    assert len(rows) == 47
    assert all(len(row) == 3 and row[2] == "*" for row in rows)
    assert len({row[0] for row in rows}) == 47
    counts = Counter(row[1] for row in rows)
    order = ("北海道", "東北", "関東", "中部", "近畿", "中国", "四国", "九州")
    assert [counts[b] for b in order] == [1, 6, 7, 9, 7, 5, 4, 8]
    assert len(counts) == 8
    expected = {_official(p): block for block, prefectures in BLOCKS.items() for p in prefectures}
    assert {row[0]: row[1] for row in rows} == expected
    assert ("沖縄県", "九州", "*") in rows


# ---------------------------------------------------------------------------------------------
# Suggestions


@pytest.mark.parametrize("values", [
    ["100-0001", "060-0806", "980-8671", "530-0001", "900-8570"],
    ["1000001", "0600806", "9808671", "5300001", "9008570"],
    ["１００－０００１", "〒060-0806", "9808671", "530-0001", "900-8570"],
])
def test_postal_codes_by_shape_with_a_neutral_name(japan: tuple[Pack, ...], values: list[str]) -> None:
    suggestions = suggest_column("col3", values, japan)
    assert _ids(suggestions) == ["jp.postal_code"]
    s = suggestions[0]
    assert s.role == "quasi_identifier"
    assert s.generalizer == {"type": "prefix", "lengths": [3, 1]}
    assert s.evidence == Evidence(name_matched=False, shape_share=1.0, values_share=None, checked=5)
    assert set(s.why) == {"en", "ja"}


def test_postal_code_share_below_min_share_and_by_name(japan: tuple[Pack, ...]) -> None:
    values = ["100-0001"] * 8 + ["unknown", "tbd"]  # 0.8 < 0.9
    assert "jp.postal_code" not in _ids(suggest_column("col3", values, japan))
    by_name = suggest_column("郵便番号", values, japan)
    assert _ids(by_name) == ["jp.postal_code"]
    assert by_name[0].evidence == Evidence(True, 0.8, None, 10)


def test_age_column(japan: tuple[Pack, ...]) -> None:
    values = ["34", "7", "101", None, "56"]
    suggestions = suggest_column("年齢", values, japan)
    assert _ids(suggestions) == ["jp.age"]
    s = suggestions[0]
    assert s.evidence == Evidence(name_matched=True, shape_share=1.0, values_share=None, checked=4, range_share=1.0)
    assert s.generalizer is not None and s.generalizer["type"] == "bins"
    # full-width digits count after NFKC; NULLs are excluded from the share
    wide = suggest_column("ｎｅｕｔｒａｌ", ["３４", "７", None, None], japan)
    assert _ids(wide) == ["jp.age"]
    assert wide[0].evidence == Evidence(False, 1.0, None, 2, 1.0)


def test_prefecture_by_values_with_share(japan: tuple[Pack, ...]) -> None:
    values = ["東京都", "大阪府", "北海道", "沖縄県", "神奈川県", "京都府", "福岡県", "愛知県", "宮城県", "広島県",
              "東京都", "大阪府", "北海道", "沖縄県", "神奈川県", "京都府", "福岡県", "愛知県", "宮城県", "東京",
              None, None]
    suggestions = suggest_column("居住地", values, japan)
    assert _ids(suggestions) == ["jp.prefecture"]
    s = suggestions[0]
    assert s.evidence == Evidence(name_matched=False, shape_share=None, values_share=0.95, checked=20)
    assert s.generalizer == {"type": "hierarchy", "hierarchy": "prefecture_region"}
    # below min_share by values, still matched by the name
    half = ["東京都", "東京", "大阪府", "大阪"]
    assert suggest_column("居住地", half, japan) == ()
    named = suggest_column("都道府県", half, japan)
    assert _ids(named) == ["jp.prefecture"] and named[0].evidence == Evidence(True, None, 0.5, 4)


@pytest.mark.parametrize(("column", "matched"), [
    ("age", True), ("patient_age", True), ("ageBand", True), ("Age Group", True),
    ("message", False), ("page", False), ("usage", False), ("stage", False),
])
def test_an_ascii_name_matches_at_the_start_of_a_word(japan: tuple[Pack, ...], column: str, matched: bool) -> None:
    # words, not substrings: "age" is not in "message"; the values say nothing (text), only the name can match
    values = ["x", "y"]
    assert ("jp.age" in _ids(suggest_column(column, values, japan))) is matched


@pytest.mark.parametrize(("column", "rule"), [("zipcode", "jp.postal_code"), ("myNumber", "jp.my_number_column"),
                                              ("my-number", "jp.my_number_column"), ("hotel", None),
                                              ("filename", None)])
def test_words_run_on_and_split_as_people_write_them(japan: tuple[Pack, ...], column: str, rule: str | None) -> None:
    found = _ids(suggest_column(column, ["x", "y"], japan))
    assert found == ([rule] if rule else [])


def test_free_text_gets_no_quasi_identifier(japan: tuple[Pack, ...]) -> None:
    notes = ["頭痛が続く。来週再診。", "特記事項なし", "薬の副作用について相談", None, "血圧やや高め 130/85"]
    assert [s for s in suggest_column("備考", notes, japan) if s.role == "quasi_identifier"] == []
    assert suggest_column("notes", notes, japan) == ()


def test_identifier_columns_by_name(japan: tuple[Pack, ...]) -> None:
    values = ["x", "y"]
    assert _ids(suggest_column("氏名", values, japan)) == ["jp.name"]
    assert _ids(suggest_column("ﾌﾘｶﾞﾅ", values, japan)) == ["jp.name"]  # NFKC of the column name
    assert _ids(suggest_column("My_Number", values, japan)) == ["jp.my_number_column"]
    assert _ids(suggest_column("電話番号", values, japan)) == ["jp.phone_column"]
    assert {s.role for s in suggest_column("患者氏名", values, japan)} == {"identifier"}


def test_birth_dates(japan: tuple[Pack, ...]) -> None:
    iso = suggest_column("c1", ["1980-04-01", "1975-12-31", None], japan)
    assert _ids(iso) == ["jp.birth_date"]
    assert iso[0].generalizer == {"type": "date", "levels": ["month", "year"]}
    assert _ids(suggest_column("c1", ["1980/4/1", "1975/12/31"], japan)) == ["jp.birth_date_slash"]
    assert _ids(suggest_column("生年月日", ["昭和55年4月1日"], japan)) == ["jp.birth_date"]


def test_empty_column_matches_by_name_only(japan: tuple[Pack, ...]) -> None:
    assert suggest_column("col3", [None, None], japan) == ()
    only_name = suggest_column("postal", [None, None], japan)
    assert only_name[0].evidence == Evidence(True, None, None, 0)


def test_suggestion_generalizer_is_a_copy(japan: tuple[Pack, ...]) -> None:
    first = suggest_column("postal", [], japan)[0]
    assert first.generalizer is not None
    first.generalizer["lengths"].append(99)
    assert suggest_column("postal", [], japan)[0].generalizer == {"type": "prefix", "lengths": [3, 1]}


@pytest.mark.parametrize("column", ["email", "Email", "E-Mail", "e_mail", "emailAddress", "mail", "メール",
                                    "メールアドレス", "連絡用メール"])
def test_the_email_rule_names_an_email_column(japan: tuple[Pack, ...], column: str) -> None:
    # `email` is one word: the rule's `mail` does not start it, so the rule names `email` too
    found = suggest_column(column, ["x", "y"], japan)
    assert _ids(found)[:1] == ["jp.email_column"] and found[0].role == "identifier"
    assert found[0].evidence.name_matched


def test_a_short_number_outside_the_plausible_ages_is_no_age(japan: tuple[Pack, ...]) -> None:
    # incomes in 万円 under a neutral name: every value 1 to 3 digits, nearly none a plausible age
    incomes = [str(v) for v in (0, 150, 230, 480, 560, 720, 980, 300, 410, 655)] * 10
    assert "jp.age" not in _ids(suggest_column("v9", incomes, japan))
    assert "jp.age" not in _ids(suggest_column("age_days", [str(d) for d in range(0, 1000, 7)], japan))
    ages = suggest_column("c", ["34", "7", "101", "56", "１２０"], japan)
    assert _ids(ages) == ["jp.age"] and ages[0].evidence.range_share == 1.0
    # the range judges the values that read as numbers: 42歳 is none, and the name still says age
    named = suggest_column("年齢", ["42歳", "7歳"], japan)
    assert _ids(named) == ["jp.age"] and named[0].evidence.range_share is None
    # a share, like the shape's: 96 of 100 in range pass min_share 0.95, 94 do not
    assert "jp.age" in _ids(suggest_column("c", ["30"] * 96 + ["300"] * 4, japan))
    assert "jp.age" not in _ids(suggest_column("c", ["30"] * 94 + ["300"] * 6, japan))


@pytest.mark.parametrize("column", ["income", "annual_income", "Salary", "wage", "年収", "給与", "所得", "diagnosis",
                                    "病名", "主病名", "疾患名"])
def test_what_an_extract_is_about_is_proposed_sensitive(japan: tuple[Pack, ...], column: str) -> None:
    for values in (["35", "42", "98", "12"], ["350", "4200", "9800000", "0"], ["x", "y"]):
        found = suggest_column(column, values, japan)
        assert found and found[0].rule_id == "jp.sensitive" and found[0].role == "sensitive", (column, values)
        assert found[0].evidence.name_matched


def test_a_date_named_after_a_diagnosis_is_still_a_date(japan: tuple[Pack, ...]) -> None:
    # the date rules come before the sensitive names: a diagnosis date is a quasi-identifier
    found = suggest_column("diagnosis_date", ["2020-01-02", "2021-11-30"], japan)
    assert _ids(found)[0] == "jp.birth_date"


# ---------------------------------------------------------------------------------------------
# Several packs


def test_user_pack_comes_after_the_builtin(tmp_path: Path) -> None:
    path = _user_pack(tmp_path, [WARD, {**WARD, "id": "clinic.zip3", "names": ["zip"], "role": "keep"}])
    packs = select_packs(True, [path])
    assert [p.name for p in packs] == ["japan", "clinic"]
    assert not packs[1].builtin and packs[1].source == str(path)
    assert _ids(suggest_column("ward", ["A", "B"], packs)) == ["clinic.ward"]
    assert _ids(suggest_column("zip", ["A"], packs)) == ["jp.postal_code", "clinic.zip3"]


def test_extra_packs_in_the_order_given(tmp_path: Path) -> None:
    a = _user_pack(tmp_path, [WARD], name="a", file="a.json")
    b = _user_pack(tmp_path, [{**WARD, "id": "b.ward"}], name="b", file="b.json")
    assert _ids(suggest_column("ward", [], select_packs(False, [b, a]))) == ["b.ward", "clinic.ward"]
    assert _ids(suggest_column("ward", [], select_packs(False, [a, b]))) == ["clinic.ward", "b.ward"]


def test_reusing_a_builtin_rule_id_is_refused(tmp_path: Path) -> None:
    path = _user_pack(tmp_path, [{**WARD, "id": "jp.postal_code"}])
    with pytest.raises(HintPackError) as caught:
        select_packs(True, [path])
    message = str(caught.value)
    assert "'clinic'" in message and str(path) in message
    assert "reuses rule id 'jp.postal_code' of pack 'japan' (the built-in pack)" in message
    # without the built-in pack there is nothing to clash with
    assert [p.name for p in select_packs(False, [path])] == ["clinic"]


def test_reusing_a_rule_id_between_user_packs_is_refused(tmp_path: Path) -> None:
    a = _user_pack(tmp_path, [WARD], name="a", file="a.json")
    b = _user_pack(tmp_path, [WARD], name="b", file="b.json")
    with pytest.raises(HintPackError, match=r"'b' \(.*b\.json\) reuses rule id 'clinic.ward' of pack 'a' \("):
        select_packs(False, [a, b])


def test_no_builtin_hints_leaves_only_the_user_pack(tmp_path: Path) -> None:
    path = _user_pack(tmp_path, [WARD, {"id": "clinic.mail", "kind": "leak", "detector": "email",
                                        "why": {"en": "e-mail in notes"}}])
    packs = select_packs(False, [path])
    assert [p.name for p in packs] == ["clinic"]
    assert suggest_column("col3", ["100-0001", "1000001"], packs) == ()
    assert leak_rules(packs) == ("email",)
    assert scan_column(["call 090-1234-5678", "a@example.com"], packs) == {"email": 1}
    assert observe_column("c", ["ｶﾀｶﾅ", "カタカナ"], packs, None, []) == ()
    assert select_packs(False, []) == ()


def test_user_pack_with_its_own_hierarchy(tmp_path: Path) -> None:
    hierarchy = {"ward_wing": [["W1", "east", "*"], ["W2", "east", "*"], ["W3", "west", "*"]]}
    rule = {"id": "clinic.ward_code", "kind": "suggest", "values_in": "ward_wing", "min_share": 0.5,
            "role": "quasi_identifier", "generalizer": {"type": "hierarchy", "hierarchy": "ward_wing"},
            "why": {"en": "ward codes"}}
    packs = select_packs(True, [_user_pack(tmp_path, [rule], hierarchies=hierarchy)])
    found = suggest_column("c", ["W1", "Ｗ２", "X9", None], packs)  # full-width Ｗ２ is W2 after NFKC
    assert _ids(found) == ["clinic.ward_code"]
    assert found[0].evidence.values_share == pytest.approx(2 / 3)


# ---------------------------------------------------------------------------------------------
# Validation


def _valid() -> dict[str, Any]:
    return {
        "pack": "clinic", "version": 1,
        "rules": [copy.deepcopy(WARD), {"id": "clinic.age", "kind": "suggest", "shape": "digit{1,3}",
                                        "role": "quasi_identifier",
                                        "generalizer": {"type": "bins", "edges": [[0, 20, 40, 65, 120], [0, 65, 120]]},
                                        "why": {"en": "age"}}],
        "hierarchies": {"wing": [["W1", "east", "*"], ["W2", "west", "*"]]},
    }


def _set(path: list[Any], value: Any) -> Any:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return edit


def _delete(path: list[Any]) -> Any:
    def edit(data: dict[str, Any]) -> None:
        target: Any = data
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return edit


def _append_rule(rule: dict[str, Any]) -> Any:
    def edit(data: dict[str, Any]) -> None:
        data["rules"].append(rule)
    return edit


@pytest.mark.parametrize(("edit", "message"), [
    (_set(["rules", 1, "shape"], "digit{3,2}"),
     r"rules\[1\] \('clinic.age'\): shape 'digit\{3,2\}': at 6: the upper bound 2 is below the lower bound 3"),
    (_set(["rules", 1, "shape"], "digits{3}"),
     r"rules\[1\] \('clinic.age'\): shape 'digits\{3\}': at 1: unknown class"),
    (_set(["rules", 0, "role"], "secret"), r"rules\[0\] \('clinic.ward'\): unknown role 'secret'"),
    (_append_rule(copy.deepcopy(WARD)), r"rules\[2\] \('clinic.ward'\): duplicate rule id: rules\[0\] has it"),
    (_set(["rules", 0, "values_in"], "nowhere"),
     r"rules\[0\] \('clinic.ward'\): 'values_in' 'nowhere' is not a hierarchy"),
    (_set(["rules", 1, "generalizer"], {"type": "hierarchy", "hierarchy": "nowhere"}),
     r"rules\[1\] \('clinic.age'\): generalizer hierarchy 'nowhere' is not a hierarchy of this pack"
     r" \(hierarchies: wing\)"),
    (_set(["rules", 1, "generalizer", "edges"], [[0, 40, 20]]), r"rules\[1\] \('clinic.age'\): bins 'edges' list 0"),
    (_set(["rules", 1, "generalizer", "edges"], [[0, 20, 40], [0, 30]]),
     r"bins 'edges' list 1 must keep only edges of list 0"),
    (_set(["rules", 1, "generalizer", "edges"], [[0, "20"]]), r"bins 'edges' list 0 must be numbers"),
    (_set(["rules", 0, "why"], {"ja": "病棟"}), r"rules\[0\] \('clinic.ward'\): 'why' lacks 'en'"),
    (_delete(["rules", 0, "why"]), r"rules\[0\] \('clinic.ward'\): 'why' must be an object"),
    (_delete(["rules", 0, "id"]), r"rules\[0\]: missing 'id'"),
    (_set(["rules", 0, "colour"], "red"), r"rules\[0\] \('clinic.ward'\): unknown key\(s\) 'colour' in a suggest rule"),
    (_set(["rules", 0, "kind"], "rewrite"), r"unknown kind 'rewrite'"),
    (_append_rule({"id": "x.leak", "kind": "leak", "detector": "passport", "why": {"en": "."}}),
     r"rules\[2\] \('x.leak'\): unknown detector 'passport'"),
    (_append_rule({"id": "x.obs", "kind": "observe", "check": "spelling", "why": {"en": "."}}),
     r"rules\[2\] \('x.obs'\): unknown check 'spelling'"),
    (_set(["rules", 1, "generalizer"], {"type": "round"}), r"unknown generalizer type 'round'"),
    (_set(["rules", 1, "generalizer"], {"type": "prefix", "lengths": [1, 3]}), r"prefix 'lengths'"),
    (_set(["rules", 1, "generalizer"], {"type": "date", "levels": ["year", "month"]}), r"date 'levels'"),
    (_set(["rules", 0, "generalizer"], {"type": "date", "levels": ["week"]}), r"date 'levels'"),
    (_set(["rules", 0, "role"], "identifier"), None),  # valid on its own: no generalizer on rule 0
    (_set(["rules", 1, "role"], "keep"), r"a generalizer is for role 'quasi_identifier', not 'keep'"),
    (_set(["rules", 1, "min_share"], 0), r"'min_share' must be a number in \(0, 1\]; got 0"),
    (_set(["rules", 1, "min_share"], 1.5), r"'min_share' must be a number in \(0, 1\]"),
    (_set(["rules", 1, "min_share"], True), r"'min_share' must be a number"),
    (_delete(["rules", 0, "names"]), r"needs at least one of 'names', 'shape' and 'values_in'"),
    (_set(["rules", 0, "names"], []), r"'names' must be a non-empty list"),
    (_set(["hierarchies", "wing"], [["W1", "east", "*"], ["W2", "*"]]), r"hierarchies\['wing'\]: row 1 has 2 levels"),
    (_set(["hierarchies", "wing"], [["W1", "east", "*"], ["W2", "west", "root"]]),
     r"hierarchies\['wing'\]: the last level must hold one value"),
    (_set(["hierarchies", "wing"], [["W1", "east", "*"], ["W1", "west", "*"]]), r"rows 0 and 1 have the same leaf"),
    (_set(["hierarchies", "wing"], [["W1", "east", "*"], ["W2", "east", "*"], ["W3", "west", "*"]]), None),
    (_set(["hierarchies", "wing"], [["W1", "W2", "*"], ["W2", "W1", "*"]]),
     r"hierarchies\['wing'\]: 2 hierarchy label\(s\) stand for different leaves at different levels"),
    (_set(["hierarchies", "wing"], [["W1", "W1", "*"], ["W2", "W2", "*"]]), None),
    (_set(["rules", 1, "range"], [0, 120]), None),
    (_set(["rules", 1, "range"], [-5.5, 0]), None),
    (_set(["rules", 1, "range"], [120, 0]), r"rules\[1\] \('clinic.age'\): 'range' must be \[low, high\]"),
    (_set(["rules", 1, "range"], [0]), r"'range' must be \[low, high\]"),
    (_set(["rules", 1, "range"], [0, "120"]), r"'range' must be \[low, high\]"),
    (_set(["rules", 1, "range"], {"min": 0}), r"'range' must be \[low, high\]"),
    (_set(["version"], 2), r"'version' must be 1"),
    (_set(["extra"], 1), r"unknown key\(s\) 'extra' in the pack"),
])
def test_validation_errors(edit: Any, message: str | None) -> None:
    data = _valid()
    edit(data)
    if message is None:
        parse_pack(data, "mine.json")
        return
    with pytest.raises(HintPackError, match=message) as caught:
        parse_pack(data, "mine.json")
    assert str(caught.value).startswith("hint pack mine.json: ")
    assert isinstance(caught.value, ValueError)


def test_bad_shape_keeps_the_shape_error_position(tmp_path: Path) -> None:
    data = _valid()
    data["rules"][1]["shape"] = "digit{2} 'x' digit+"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(HintPackError) as caught:
        load_pack(path)
    assert str(caught.value).startswith(f"hint pack {path}: rules[1] ('clinic.age'): shape ")
    assert "at 19: unbounded repetition" in str(caught.value)


def test_unreadable_and_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(HintPackError, match="cannot be read"):
        load_pack(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"pack": "x", "version": 1, "rules": [', encoding="utf-8")
    with pytest.raises(HintPackError, match=r"not JSON: .* at line 1"):
        load_pack(broken)
    twice = tmp_path / "twice.json"
    twice.write_text('{"pack": "x", "pack": "y", "version": 1, "rules": []}', encoding="utf-8")
    with pytest.raises(HintPackError, match="appears twice"):
        load_pack(twice)
    bom = tmp_path / "bom.json"
    bom.write_bytes(b"\xef\xbb\xbf" + json.dumps(_valid()).encode("utf-8"))
    assert load_pack(bom).name == "clinic"


def test_parsed_rule_types() -> None:
    pack = parse_pack({**_valid(), "rules": [
        copy.deepcopy(WARD),
        {"id": "l", "kind": "leak", "detector": "card", "why": {"en": "."}},
        {"id": "o", "kind": "observe", "check": "era_date", "why": {"en": "."}},
    ]}, "m.json")
    assert [type(r) for r in pack.rules] == [SuggestRule, LeakRule, ObserveRule]
    assert isinstance(pack.rules[0], SuggestRule) and pack.rules[0].min_share == 0.9


# ---------------------------------------------------------------------------------------------
# Leak checks


def test_scan_column_finds_a_planted_my_number(japan: tuple[Pack, ...]) -> None:
    number = _planted_my_number()
    spaced = f"{number[:4]} {number[4:8]} {number[8:]}"
    notes = ["特記事項なし", f"本人確認済み(個人番号{number})", f"番号 {spaced} を控えた", None, "再診予定"]
    counts = scan_column(notes, japan)
    assert set(counts) == set(KINDS)
    assert counts["my_number"] == 2
    assert counts["phone"] == counts["email"] == counts["card"] == 0
    # a wrong check digit is not a My Number
    wrong = number[:11] + str((int(number[11]) + 1) % 10)
    assert scan_column([f"個人番号{wrong}"], japan)["my_number"] == 0


def test_scan_column_other_detectors(japan: tuple[Pack, ...]) -> None:
    notes = ["連絡先 ０９０－１２３４－５６７８", "メールはtaro@example.comまで", "card 4111 1111 1111 1111", "なし"]
    assert scan_column(notes, japan) == {"my_number": 0, "card": 1, "phone": 1, "email": 1}


# ---------------------------------------------------------------------------------------------
# Observations


@pytest.mark.parametrize(("values", "count"), [
    (["ｶﾀｶﾅ", "カタカナ", "テスト", None], 1),
    (["ＡＢＣ", "ABC", "ＸＹＺ", "ＤＥＦ"], 1),  # ABC is the minority side
    (["東京都千代田区１－２－３", "大阪市北区1-2-3"], 1),
])
def test_mixed_width(japan: tuple[Pack, ...], values: list[str | None], count: int) -> None:
    found = observe_column("c", values, japan, None, [])
    assert [(o.rule_id, o.check, o.count, o.of) for o in found] == [
        ("jp.mixed_width", "mixed_width", count, sum(v is not None for v in values))]
    assert set(found[0].why) == {"en", "ja"}


@pytest.mark.parametrize("values", [
    ["カタカナ", "テスト"],  # one width only
    ["ＡＢＣ", "ＸＹＺ"],
    ["トウキョウ１２３", "オオサカ４５６"],  # full-width digits and standard katakana throughout: consistent
    ["（備考）あり", "なし"],  # full-width punctuation is not counted
])
def test_no_mixed_width(japan: tuple[Pack, ...], values: list[str]) -> None:
    assert observe_column("c", values, japan, None, []) == ()


def test_era_dates(japan: tuple[Pack, ...]) -> None:
    values = ["令和5年4月1日", "H12.3.4", "平成元年1月8日", "Ｓ５５．１２．３", "R5/4/1", "1980-04-01", "H12.13.4",
              "令和5年", None]
    found = observe_column("生年月日", values, japan, None, [])
    assert [(o.check, o.count, o.of) for o in found] == [("mixed_width", 1, 8), ("era_date", 5, 8)]
    more = ["㋿5年4月1日", "昭和 55年 4月 1日", "M45.7.30", "H12", "HELLO", "平成31年4月31日x"]
    assert [era_date(v) for v in more] == [True, True, True, False, False, False]


def test_checks_count_rows_though_each_distinct_value_is_looked_at_once(japan: tuple[Pack, ...]) -> None:
    # the minority side of a width mix is the side with fewer rows, not fewer distinct values
    found = observe_column("c", ["ＡＢＣ", "ＸＹＺ", "ABC", "ABC", "ABC"], japan, None, [])
    assert [(o.check, o.count, o.of) for o in found] == [("mixed_width", 2, 5)]
    # every count of a column three times over is three times the count; every share the same
    column = ["令和5年4月1日", "ＡＢＣ", "ABC", "090-1234-5678", "taro@example.com", "42", "130", None, "42"]
    once, thrice = column, column * 3
    assert {k: 3 * n for k, n in scan_column(once, japan).items()} == scan_column(thrice, japan)
    assert [(o.rule_id, 3 * o.count, 3 * o.of) for o in observe_column("c", once, japan, None, [])] == \
        [(o.rule_id, o.count, o.of) for o in observe_column("c", thrice, japan, None, [])]
    ages = ["42", "７", "7", "65", "33", None, "42", "101"]  # ７ and 7 are one value after NFKC
    for name, values in (("年齢", ages), ("誕生日", column), ("mail", column)):
        single, triple = suggest_column(name, values, japan), suggest_column(name, values * 3, japan)
        assert single, name
        assert [(s.rule_id, s.evidence.name_matched, s.evidence.shape_share, s.evidence.values_share,
                 s.evidence.range_share, 3 * s.evidence.checked) for s in single] == \
            [(s.rule_id, s.evidence.name_matched, s.evidence.shape_share, s.evidence.values_share,
              s.evidence.range_share, s.evidence.checked) for s in triple]


def test_qi_declared_otherwise(japan: tuple[Pack, ...]) -> None:
    def checks(declared: str | None, suggested: list[str]) -> list[tuple[str, int, int]]:
        return [(o.rule_id, o.count, o.of) for o in observe_column("c", ["x"], japan, declared, suggested)]

    assert checks("keep", ["quasi_identifier"]) == [("jp.qi_declared_otherwise", 1, 1)]
    assert checks("sensitive", ["identifier", "quasi_identifier"]) == [("jp.qi_declared_otherwise", 1, 1)]
    assert checks("quasi_identifier", ["quasi_identifier"]) == []
    assert checks("drop", ["quasi_identifier"]) == []
    assert checks("keep", ["identifier"]) == []
    assert checks(None, ["quasi_identifier"]) == []


def test_observations_in_rule_order(japan: tuple[Pack, ...]) -> None:
    found = observe_column("c", ["令和5年4月1日", "Ｒ５．４．１"], japan, "keep", ["quasi_identifier"])
    assert [o.check for o in found] == ["mixed_width", "era_date", "qi_declared_otherwise"]


# ---------------------------------------------------------------------------------------------
# Privacy


def test_nothing_returned_holds_a_value(tmp_path: Path) -> None:
    number = _planted_my_number()
    secrets = ["SECRET-4711", "090-8765-4321", f"個人番号{number}", "ｼｰｸﾚｯﾄ", "シークレット", "令和3年2月1日",
               "hanako@secret.example", "100-0001"]
    packs = select_packs(True, [_user_pack(tmp_path, [WARD])])
    rendered: list[str] = []
    for column in ("secret_column", "郵便番号", "age"):
        suggestions = suggest_column(column, secrets, packs)
        observations = observe_column(column, secrets, packs, "keep", [s.role for s in suggestions])
        rendered += [repr(suggestions), repr(observations), repr(scan_column(secrets, packs))]
        assert observations  # the checks did run on these values
    assert scan_column(secrets, packs)["phone"] == 1
    text = "\n".join(rendered)
    for value in secrets:
        assert value not in text
    for fragment in ("4711", "8765", number, "hanako", "ｼｰｸﾚｯﾄ", "シークレット", "100-0001"):
        assert fragment not in text
