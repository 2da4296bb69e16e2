"""The value-shape language of hint packs and the identifier detectors of leak checks (issue 14).

Pure Python and fast: no dbt, no database. The My Number check digits are recomputed here with a
separately written weight table, not with the module's code.
"""

from __future__ import annotations

from collections import Counter

import pytest
from kanon_tools.records.identifiers import (
    KINDS,
    LeakCounts,
    email,
    luhn_valid,
    my_number_valid,
    phone_jp,
    scan_text,
    scan_values,
)
from kanon_tools.records.shapes import MAX_ITEMS, MAX_TEXT, Shape, ShapeError, parse_shape

# ---------------------------------------------------------------------------------------------
# shapes: parsing


@pytest.mark.parametrize(
    ("text", "position", "problem"),
    [
        ("digit{3,2}", 6, "the upper bound 2 is below the lower bound 3"),
        ("digits", 1, "unknown class 'digits'"),
        ("digit '-' foo{2}", 11, "unknown class 'foo'"),
        ("Digit", 1, "unknown class 'Digit'"),
        ("digit{1,65}", 6, "the bound 65 is above the limit 64"),
        ("digit{65}", 6, "the bound 65 is above the limit 64"),
        ("'abc", 1, "unterminated literal"),
        ("digit '''", 7, "unterminated literal"),
        ("", 1, "the shape is empty"),
        ("   ", 1, "the shape is empty"),
        ("''", 1, "empty literal"),
        ("digit ''{2}", 7, "empty literal"),
        ("?", 1, "the quantifier '?' follows no atom"),
        ("digit {2}", 7, "the quantifier '{' follows no atom"),
        ("digit*", 6, "unbounded repetition '*'"),
        ("any+", 4, "unbounded repetition '+'"),
        ("digit{2,}", 6, "unbounded repetition '{n,}'"),
        ("digit{2", 8, "expected ',' or '}', the shape ended"),
        ("digit{2,3", 10, "expected '}', the shape ended"),
        ("digit{a}", 7, "expected a number after '{', found 'a'"),
        ("digit{2,b}", 9, "expected a number after ',', found 'b'"),
        ("digit??", 7, "a second quantifier"),
        ("digit{2}*", 9, "unbounded repetition '*'"),
        ("digit'-'", 6, 'expected a space before the next item, found "\'"'),
        ("'-'digit", 4, "expected a space before the next item, found 'd'"),
        ("digit (any)", 7, "unexpected character '('"),
        ("digit " * MAX_ITEMS + "digit", MAX_ITEMS * 6 + 1, f"more than {MAX_ITEMS} items"),
        ("'" + "a" * MAX_TEXT + "'", MAX_TEXT + 1, f"the shape is longer than {MAX_TEXT} characters"),
    ],
)
def test_bad_shapes_name_the_problem_and_its_position(text: str, position: int, problem: str) -> None:
    with pytest.raises(ShapeError) as caught:
        parse_shape(text)
    assert caught.value.position == position
    assert problem in caught.value.problem
    assert f": at {position}: {problem}" in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_error_message_quotes_the_shape() -> None:
    with pytest.raises(ShapeError, match=r"^shape 'digit\{3,2\}': at 6: the upper bound 2 is below the lower bound 3$"):
        parse_shape("digit{3,2}")


def test_the_limits_themselves_are_allowed() -> None:
    assert parse_shape("digit " * (MAX_ITEMS - 1) + "digit").positions == MAX_ITEMS
    assert parse_shape("any{64}").max_length == 64
    assert parse_shape("'" + "a" * (MAX_TEXT - 2) + "'").positions == MAX_TEXT - 2


def test_parsed_items() -> None:
    shape = parse_shape("  digit{3}\t'-'?   'it''s'{0,2} kana ")
    assert [(item.atom, item.literal, item.low, item.high, item.position) for item in shape.items] == [
        ("digit", False, 3, 3, 3),
        ("-", True, 0, 1, 12),
        ("it's", True, 0, 2, 19),
        ("kana", False, 1, 1, 32),
    ]
    assert shape.text == "  digit{3}\t'-'?   'it''s'{0,2} kana "
    assert str(shape) == shape.text
    assert shape == parse_shape(shape.text)
    assert shape != parse_shape("digit{3} '-'? 'it''s'{0,2} kana")


# ---------------------------------------------------------------------------------------------
# shapes: classes, quantifiers, literals


@pytest.mark.parametrize(
    ("name", "accepted", "rejected"),
    [
        ("digit", "0959", "０a五 "),
        ("wide_digit", "０９", "0a"),
        ("any_digit", "5５", "a五-"),
        ("upper", "AZ", "aＡÉ1"),
        ("lower", "az", "Aａé1"),
        ("letter", "aZéあア漢", "1 -、０"),
        ("alnum", "aZ7", "é７_ -"),
        ("kana", "ぁあゟアヴー・ｦｱｰﾟ", "a漢々1"),
        ("kanji", "漢字々㐀", "あアa1"),
        ("space", " \t\u3000", "a_"),
        ("punct", "、。「」（）-.!", "a+¥ "),
        ("any", "a漢 -\u3000", ""),
    ],
)
def test_each_class_tests_one_character(name: str, accepted: str, rejected: str) -> None:
    shape = parse_shape(name)
    assert (shape.min_length, shape.max_length, shape.positions) == (1, 1, 1)
    for c in accepted:
        assert shape.fullmatch(c), (name, c)
    for c in rejected:
        assert not shape.fullmatch(c), (name, c)
    assert not shape.fullmatch("")
    assert not shape.fullmatch((accepted[0]) * 2)


@pytest.mark.parametrize(
    ("text", "matching", "not_matching"),
    [
        ("digit?", ["", "1"], ["12", "a"]),
        ("digit{3}", ["123"], ["12", "1234", "12a"]),
        ("digit{2,4}", ["12", "123", "1234"], ["1", "12345"]),
        ("digit{0}", [""], ["1"]),
        ("digit{0,0} upper", ["A"], ["1A"]),
        ("upper{1,2} digit?", ["A", "AB", "A1", "AB1"], ["", "1", "ABC", "A12"]),
        # a quantifier repeats the whole literal: 'ab'? is nothing or ab, never a or b alone
        ("'ab'?", ["", "ab"], ["a", "b", "abab"]),
        ("'ab'{2}", ["abab"], ["ab", "aabb", "ababab"]),
        ("'ab'{0,2} 'a'", ["a", "aba", "ababa"], ["ab", "abab", "abaa"]),
        ("'it''s'", ["it's"], ["its", "it''s"]),
        ("''''", ["'"], ["''"]),
        ("'a b'", ["a b"], ["ab", "a  b"]),
        ("digit{3} '-'? digit{4}", ["100-0001", "1000001"], ["100－0001", "100-001", "100--0001", "１００-０００１"]),
        (
            "'〒'? any_digit{3} '-' any_digit{4}",
            ["〒100-0001", "100-0001", "〒１００-０００１"],
            ["〒1000001", "〒 100-0001"],
        ),
        ("digit{1,3}", ["7", "42", "101"], ["", "1000", "4 2"]),
        (
            "kanji{2} any_digit{1,2} '年' any_digit{1,2} '月' any_digit{1,2} '日'",
            ["令和6年4月1日", "平成３１年１２月３１日"],
            ["令和6年4月", "R6年4月1日", "令和六年四月一日"],
        ),
        ("kana{1,10} space kana{1,10}", ["やまだ たろう", "ヤマダ\u3000タロウ"], ["山田 太郎", "やまだたろう"]),
        ("alnum{2,8} '@' alnum{2,8} '.' lower{2,3}", ["taro@example.jp"], ["ta ro@example.jp", "taro@example.JP"]),
    ],
)
def test_fullmatch(text: str, matching: list[str], not_matching: list[str]) -> None:
    shape = parse_shape(text)
    for value in matching:
        assert shape.fullmatch(value), (text, value)
    for value in not_matching:
        assert not shape.fullmatch(value), (text, value)


@pytest.mark.parametrize(
    ("text", "min_length", "max_length", "positions"),
    [
        ("digit{3} '-'? digit{4}", 7, 8, 8),
        ("'〒'? any_digit{3} '-' any_digit{4}", 8, 9, 9),
        ("digit{1,3}", 1, 3, 3),
        ("kanji{2} any_digit{1,2} '年' any_digit{1,2} '月' any_digit{1,2} '日'", 8, 11, 11),
        ("'ab'{1,3} digit?", 2, 7, 7),
        ("digit{0}", 0, 0, 0),
    ],
)
def test_length_bounds_and_positions(text: str, min_length: int, max_length: int, positions: int) -> None:
    shape = parse_shape(text)
    assert (shape.min_length, shape.max_length, shape.positions) == (min_length, max_length, positions)


# ---------------------------------------------------------------------------------------------
# shapes: the work is bounded


def test_steps_count_each_character_against_each_live_position() -> None:
    shape = parse_shape("digit{3}")
    assert shape.fullmatch_steps("123") == (True, 3)
    assert shape.fullmatch_steps("1a3") == (False, 2)  # stops at the first character nothing accepts
    assert shape.fullmatch_steps("12") == (False, 0)  # too short: rejected before any test
    # digit{0,2}: before the first character positions 0, 1 and 2 are live (0 and 1 start skippable blocks)
    assert parse_shape("digit{0,2}").fullmatch_steps("12") == (True, 2 + 1)


def test_the_work_is_at_most_length_times_positions() -> None:
    # A backtracking regex engine given .{0,64}.{0,64}.{0,64}x retries every way of splitting the
    # value between the three loops before failing, and (a+)+b backtracks exponentially. The shape
    # cannot nest repetition, and its state-set matcher never retries: each character is tested
    # against each position at most once.
    shape = parse_shape("any{0,64} any{0,64} any{0,64} 'x'")
    assert (shape.positions, shape.min_length, shape.max_length) == (193, 1, 193)

    long_value = "a" * 5000
    matched, steps = shape.fullmatch_steps(long_value)
    assert not matched
    assert steps <= len(long_value) * shape.positions
    assert steps == 0  # longer than max_length: refused without a test

    for value, expected in [("a" * 193, False), ("a" * 192 + "x", True), ("x", True), ("a" * 100, False)]:
        matched, steps = shape.fullmatch_steps(value)
        assert matched is expected
        assert 0 < steps <= len(value) * shape.positions


def test_the_work_bound_holds_for_the_largest_expansion() -> None:
    # a literal repeated 64 times: the most positions a few items can produce
    shape = parse_shape("'abcdefghij'{0,64} 'k'")
    assert shape.positions == 641
    value = "abcdefghij" * 63 + "abcdefghiX" + "k"
    matched, steps = shape.fullmatch_steps(value)
    assert not matched
    assert steps <= len(value) * shape.positions
    assert shape.fullmatch("abcdefghij" * 64 + "k")


def test_shapes_are_frozen() -> None:
    shape = parse_shape("digit")
    with pytest.raises(AttributeError):
        shape.__setattr__("text", "upper")
    assert isinstance(shape, Shape)


# ---------------------------------------------------------------------------------------------
# identifiers: My Number

# The weight of each of the first 11 digits, left to right. From the formula: the n-th digit from
# the right (n = 1 is the 11th digit) weighs n + 1 for n <= 6 and n - 5 for n >= 7, so the 11th
# digit weighs 2, the 6th 7, the 5th 2 and the 1st 6.
MY_NUMBER_WEIGHTS = (6, 5, 4, 3, 2, 7, 6, 5, 4, 3, 2)


def my_number_check_digit(first11: str) -> int:
    remainder = sum(int(d) * w for d, w in zip(first11, MY_NUMBER_WEIGHTS, strict=True)) % 11
    return 0 if remainder <= 1 else 11 - remainder


def test_the_worked_my_number_example() -> None:
    # 123456789018: 1*6 + 2*5 + 3*4 + 4*3 + 5*2 + 6*7 + 7*6 + 8*5 + 9*4 + 0*3 + 1*2 = 212,
    # 212 mod 11 = 3, check digit 11 - 3 = 8
    assert sum(int(d) * w for d, w in zip("12345678901", MY_NUMBER_WEIGHTS, strict=True)) == 212
    assert my_number_check_digit("12345678901") == 8
    assert my_number_valid("123456789018")
    assert not my_number_valid("123456789017")
    assert not my_number_valid("123456789019")


@pytest.mark.parametrize(
    "first11", ["00000000001", "10000000000", "98765432109", "31415926535", "27182818284", "55555555555"]
)
def test_my_number_check_digit(first11: str) -> None:
    check = my_number_check_digit(first11)
    assert my_number_valid(f"{first11}{check}")
    assert not my_number_valid(f"{first11}{(check + 1) % 10}")
    assert not my_number_valid(f"{first11}{(check - 1) % 10}")


def test_remainders_zero_and_one_give_check_digit_zero() -> None:
    # 00000000001: weight 2, remainder 2 -> 9; 00000000005: 10 -> 1; 00000000000: 0 -> 0
    assert my_number_valid("000000000019")
    assert my_number_valid("000000000051")
    assert my_number_valid("000000000000")
    # 00000100001: 7 + 2 = 9 -> 2; 00000600000: 42 mod 11 = 9 -> 2; 00000000006: 12 mod 11 = 1 -> 0
    assert my_number_valid("000001000012")
    assert my_number_valid("000006000002")
    assert my_number_valid("000000000060")
    assert not my_number_valid("000000000061")


@pytest.mark.parametrize(
    "value", ["12345678901", "1234567890180", "1234 5678 9018", "１２３４５６７８９０１８", "12345678901a", ""]
)
def test_my_number_takes_exactly_twelve_ascii_digits(value: str) -> None:
    assert not my_number_valid(value)


# ---------------------------------------------------------------------------------------------
# identifiers: cards, phones, e-mails


@pytest.mark.parametrize(
    ("digits", "valid"),
    [
        ("4111111111111111", True),
        ("4111111111111112", False),
        ("4111111111111121", False),
        ("5555555555554444", True),
        ("378282246310005", True),
        ("4222222222222", True),
        ("0000000000000", False),  # Luhn-valid, but all one digit: not a card
        ("0000000000000000", False),
        ("79927398713", False),  # Luhn-valid, but 11 digits: too short for a card
        ("41111111111111111111", False),  # 20 digits
        ("4111-1111-1111-1111", False),
        ("４１１１１１１１１１１１１１１１", False),
    ],
)
def test_luhn(digits: str, valid: bool) -> None:
    assert luhn_valid(digits) is valid


@pytest.mark.parametrize(
    "token",
    [
        "0312345678",
        "09012345678",
        "03-1234-5678",
        "045-123-4567",
        "0467-12-3456",
        "01267-2-3456",
        "090-1234-5678",
        "0120-123-456",
        "0800-123-4567",
        "090 1234 5678",
        "+81-90-1234-5678",
        "+81 90 1234 5678",
        "+819012345678",
        "+81-3-1234-5678",
        "+81 90-1234-5678",
        "０９０－１２３４－５６７８",
        "090ー1234ー5678",
        "03\u22121234\u22125678",
        "＋８１ ９０ １２３４ ５６７８",
    ],
)
def test_phone_numbers(token: str) -> None:
    assert phone_jp(token)


@pytest.mark.parametrize(
    "token",
    [
        "031234567",  # 9 digits
        "1234567890",  # does not start with 0
        "090123456789",  # 12 digits
        "090-1234-567",  # 10 digits, but 3-4-3 is no Japanese layout
        "03-1234-5678-9",
        "03-12345678",  # two groups
        "090-1234 5678",  # mixed separators
        "090--1234-5678",
        "-090-1234-5678",
        "+81-090-1234-5678",  # the leading 0 must be dropped after +81
        "+1-212-555-0100",
        "+81",
        "",
        "tel 090-1234-5678",
    ],
)
def test_not_phone_numbers(token: str) -> None:
    assert not phone_jp(token)


@pytest.mark.parametrize(
    ("token", "valid"),
    [
        ("taro@example.com", True),
        ("taro.yamada+clinic@mail.example.co.jp", True),
        ("t_a%ro-1@ex-ample.jp", True),
        ("ｔａｒｏ＠ｅｘａｍｐｌｅ．ｃｏｍ", True),
        ("taro@example", False),  # no dot, no TLD
        ("taro@example.c", False),  # one-letter TLD
        ("taro@example.123", False),
        ("a@b@example.com", False),  # two @
        ("@example.com", False),
        ("taro@", False),
        ("taro@.com", False),
        ("taro@example..com", False),
        ("ta ro@example.com", False),
        ("太郎@example.com", False),
        ("x" * 64 + "@example.com", True),
        ("x" * 65 + "@example.com", False),
        ("taro@" + "x" * 64 + ".com", False),
    ],
)
def test_email(token: str, valid: bool) -> None:
    assert email(token) is valid


# ---------------------------------------------------------------------------------------------
# identifiers: scanning text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("電話は０９０－１２３４－５６７８です", {"phone": 1}),
        ("マイナンバー 1234 5678 9018", {"my_number": 1}),
        ("マイナンバー１２３４－５６７８－９０１８。", {"my_number": 1}),
        ("マイナンバー 1234 5678 9019", {}),  # check digit wrong: not a My Number, and nothing else
        ("カード 4111-1111-1111-1111、メール taro@example.com。", {"card": 1, "email": 1}),
        ("メールはtaro@example.comまで", {"email": 1}),
        ("連絡先：「taro@example.com」、hanako@example.co.jp", {"email": 2}),
        ("a@b.com,c@d.org", {"email": 2}),
        ("自宅 03-1234-5678 携帯 090ー1234ー5678", {"phone": 2}),
        ("海外から +81 90 1234 5678 へ", {"phone": 1}),
        ("〒100-0001 03-1234-5678", {"phone": 1}),  # the whole run is nothing; its parts hold a phone
        ("taro09012345678@example.com", {"email": 1}),  # digits inside an address count once, as it
        ("特記事項なし。血圧 120/80、体温 36.5度、2024-01-15 受診", {}),
        ("user@localhost 0000000000000", {}),
        ("", {}),
    ],
)
def test_scan_text(text: str, expected: dict[str, int]) -> None:
    assert scan_text(text) == Counter(expected)


def test_scan_text_of_none_is_empty() -> None:
    assert scan_text(None) == Counter()


def test_scan_values_counts_values_not_findings() -> None:
    values = [
        "090-1234-5678",
        None,
        "なし",
        "taro@example.com 090-1234-5678 03-1234-5678",
        None,
        "1234 5678 9018",
        "1234 5678 9019",
    ]
    result = scan_values(values)
    assert result == LeakCounts(checked=5, skipped=2, found={"my_number": 1, "card": 0, "phone": 2, "email": 1})
    assert tuple(result.found) == KINDS
    assert "5678" not in repr(result) and "taro" not in repr(result)


def test_scan_values_of_nothing() -> None:
    assert scan_values([]) == LeakCounts(checked=0, skipped=0, found=dict.fromkeys(KINDS, 0))
    assert scan_values(iter([None, None])).skipped == 2
