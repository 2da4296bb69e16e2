"""Tables in and out of CSV, JSON and XML files for the record release (issue 14).

Pure Python and fast: no dbt, no database. Every error test also checks that the message holds no
value of the data, by planting a distinctive value in the bad file.
"""

from __future__ import annotations

import codecs
import os
from collections import Counter
from pathlib import Path

import pytest
from kanon_tools.records.files import (
    FORMATS,
    FileFormatError,
    Table,
    _canonical,
    format_of,
    parse_table,
    read_table,
    render_table,
    shuffled,
    write_table,
)

SECRET = "SECRET-VALUE-42"
SEED = b"kanon-test-seed"

JAPANESE = Table(
    columns=("氏名", "birth date", "postal code", "sex", "diagnosis"),
    rows=(
        ("山田 太郎", "1980-04-01", "１００-０００１", "M", "東京都の病院, 再診"),
        ("佐藤 花子", None, "150-0002", "F", 'note with "quotes"'),
        ("Jean, Valjean", "1769-01-01", None, None, "line one\nline two"),
        ("鈴木\r\n一郎", "2001-12-31", "060-0000", "M", "tab\there & <b>bold</b>"),
        (None, None, None, None, "only a diagnosis"),
        ("ＡＢＣ１２３", "1990-01-01", "100-0001", "F", "'single' and ]]> and &amp;"),
    ),
)


def _refused(data: bytes, fmt: str, match: str, *, secret: str = SECRET) -> FileFormatError:
    """Parse bad bytes, expect FileFormatError matching `match`, and check no planted value leaks."""
    with pytest.raises(FileFormatError, match=match) as caught:
        parse_table(data, fmt, name=f"people.{fmt}")
    assert secret not in str(caught.value)
    return caught.value


# ---------------------------------------------------------------------------------------------
# round trips


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_keeps_columns_and_rows(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"released.{fmt}"
    write_table(JAPANESE, path, seed=SEED)
    back = read_table(path)
    assert back.columns == JAPANESE.columns
    assert Counter(back.rows) == Counter(JAPANESE.rows)  # CRLF inside a value included
    assert not path.read_bytes().startswith(codecs.BOM_UTF8)


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_one_column_with_null(tmp_path: Path, fmt: str) -> None:
    table = Table(("only",), (("a",), (None,), ("b",)))
    path = tmp_path / f"t.{fmt}"
    write_table(table, path, seed=SEED)
    assert Counter(read_table(path).rows) == Counter(table.rows)


def test_xml_empty_string_and_null_are_distinct_on_round_trip(tmp_path: Path) -> None:
    table = Table(("a", "b"), (("", None),))
    path = tmp_path / "t.xml"
    write_table(table, path, seed=SEED)
    assert read_table(path).rows == (("", None),)
    assert b'<field name="a"></field>' in path.read_bytes()


def test_csv_writes_empty_string_like_null() -> None:
    table = Table(("a", "b"), (("", None),))
    assert render_table(table, "csv", seed=SEED) == b"a,b\n,\n"
    assert parse_table(b"a,b\n,\n", "csv").rows == ((None, None),)


# ---------------------------------------------------------------------------------------------
# exact bytes written


def test_render_csv_exact() -> None:
    table = Table(("a", "b c"), (('x,"y"', None),))
    assert render_table(table, "csv", seed=SEED) == b'a,b c\n"x,""y""",\n'


def test_render_csv_quotes_a_lone_carriage_return() -> None:
    table = Table(("a", "b"), (("x\ry", "z"),))
    rendered = render_table(table, "csv", seed=SEED)
    assert rendered == b'a,b\n"x\ry",z\n'
    assert parse_table(rendered, "csv").rows == (("x\ry", "z"),)


def test_render_json_exact() -> None:
    table = Table(("a", "b"), (("1", None),))
    assert render_table(table, "json", seed=SEED) == b'[\n{"a":"1","b":null}\n]\n'
    assert render_table(Table(("a",), ()), "json", seed=SEED) == b"[\n]\n"
    two = render_table(Table(("a",), (("東",), ("京",))), "json", seed=SEED).decode("utf-8")
    assert two in ('[\n{"a":"東"},\n{"a":"京"}\n]\n', '[\n{"a":"京"},\n{"a":"東"}\n]\n')


def test_render_xml_exact() -> None:
    table = Table(("a", 'b "q"'), (("1 < 2 & 3", None),))
    assert render_table(table, "xml", seed=SEED) == (
        b'<?xml version="1.0" encoding="UTF-8"?>\n<records>\n  <record>\n'
        b'    <field name="a">1 &lt; 2 &amp; 3</field>\n'
        b"    <field name='b \"q\"' null=\"true\"/>\n"
        b"  </record>\n</records>\n"
    )


# ---------------------------------------------------------------------------------------------
# reading: what is accepted


def test_csv_bom_is_dropped() -> None:
    plain = "氏名,code\n山田,1\n".encode()
    assert parse_table(codecs.BOM_UTF8 + plain, "csv") == parse_table(plain, "csv")
    assert parse_table(codecs.BOM_UTF8 + plain, "csv").columns == ("氏名", "code")


def test_csv_values_and_names_as_written() -> None:
    table = parse_table(b" a ,b\r\n  x , 0012\r\n,\r\n\r\n\r\n", "csv")
    assert table.columns == (" a ", "b")
    assert table.rows == (("  x ", " 0012"), (None, None))


def test_csv_quoted_newline_and_line_numbers() -> None:
    data = f'a,b\n"{SECRET}\nsecond line",1\nx,y,z\n'.encode()
    _refused(data, "csv", r"^people\.csv, line 4: 3 fields where the header has 2$")
    table = parse_table(b'a,b\n"x\ny",1\n', "csv")
    assert table.rows == (("x\ny", "1"),)


def test_json_values() -> None:
    data = b'[{"a": 1.50, "b": 10, "c": true, "d": false, "e": null, "f": "x"}, {"g": -0, "a": 1e3}]'
    table = parse_table(data, "json")
    assert table.columns == ("a", "b", "c", "d", "e", "f", "g")
    assert table.rows == (
        ("1.50", "10", "true", "false", None, "x", None),
        ("1e3", None, None, None, None, None, "-0"),
    )
    assert all(type(value) is str for row in table.rows for value in row if value is not None)


def test_json_with_bom() -> None:
    assert parse_table(codecs.BOM_UTF8 + b'[{"a":"1"}]', "json").rows == (("1",),)


def test_xml_element_per_column_and_missing_fields() -> None:
    data = "<people><person><氏名>山田</氏名><code> 1 </code></person><person><x>2</x></person></people>"
    table = parse_table(data.encode(), "xml")
    assert table.columns == ("氏名", "code", "x")
    assert table.rows == (("山田", " 1 ", None), (None, None, "2"))


def test_xml_null_versus_empty() -> None:
    data = (
        b'<?xml version="1.0" encoding="utf-8"?>\n<records><record><field name="a" null="true"/>'
        b'<field name="b"/><field name="c"></field><field name="d" null="false">v</field></record></records>'
    )
    assert parse_table(data, "xml").rows == ((None, "", "", "v"),)


# ---------------------------------------------------------------------------------------------
# reading: what is refused


def test_csv_duplicate_header() -> None:
    _refused(f"a,b,a\n{SECRET},1,2\n".encode(), "csv", r"line 1: the column 'a' appears twice, at positions 1 and 3")


def test_csv_empty_header_name_and_empty_file() -> None:
    _refused(f"a,,c\n{SECRET},1,2\n".encode(), "csv", r"line 1: column 2 has an empty name")
    _refused(b"\n\n", "csv", r"the file is empty")


def test_csv_blank_line_in_the_middle() -> None:
    _refused(f"a\n{SECRET}\n\nx\n".encode(), "csv", r"line 3: an empty line before the end")


def test_csv_bad_quoting() -> None:
    _refused(f'a,b\n"{SECRET}"x,1\n'.encode(), "csv", r"line 2: not valid CSV")
    _refused(f'a,b\n"{SECRET},1\n'.encode(), "csv", r"line 2: not valid CSV")


def test_invalid_utf8_names_offset() -> None:
    data = SECRET.encode() + b"\xff,x\n"
    _refused(b"a\n" + data, "csv", r"^people\.csv: not UTF-8: an invalid byte at offset 17$")
    # the offset counts the BOM too: it is an offset in the file
    _refused(codecs.BOM_UTF8 + b"a\n" + data, "csv", r"invalid byte at offset 20$")
    error = _refused("a\n氏".encode() + b"\xe6\x9c", "csv", r"offset 5$")
    assert "\\x" not in str(error)


def test_json_top_level_object() -> None:
    _refused(f'{{"a": "{SECRET}"}}'.encode(), "json", r"^people\.json: an object, expected an array of objects$")
    _refused(b"42", "json", r"a number, expected an array of objects")


def test_json_record_not_an_object() -> None:
    _refused(f'[{{"a": "x"}}, "{SECRET}"]'.encode(), "json", r"record 2: a string, expected an object")


def test_json_nested_value() -> None:
    data = f'[{{"a": "1"}}, {{"a": "2"}}, {{"a": "3", "b": {{"c": "{SECRET}"}}}}]'.encode()
    _refused(data, "json", r"record 3, key 'b': an object, expected a string")
    _refused(f'[{{"a": ["{SECRET}"]}}]'.encode(), "json", r"record 1, key 'a': an array")


def test_json_duplicate_keys() -> None:
    data = f'[{{"a": "1"}}, {{"a": "{SECRET}", "b": "2", "a": "3"}}]'.encode()
    _refused(data, "json", r"record 2: the key 'a' appears twice")


def test_json_syntax_error_and_constants() -> None:
    _refused(f'[{{"a": "{SECRET}",}}]'.encode(), "json", r"line 1, column \d+: not valid JSON")
    _refused(b'[{"a": NaN}]', "json", r"NaN is not a JSON value")
    _refused(b"[]", "json", r"no columns")


def test_xml_doctype_and_entity_refused() -> None:
    bomb = (
        f'<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY a "{SECRET}"><!ENTITY b "&a;&a;&a;">]>'
        "<r><record><x>&b;</x></record></r>"
    )
    _refused(bomb.encode(), "xml", r"a DOCTYPE declaration is refused")
    _refused(f'<r><!entity a "{SECRET}"><record><x>1</x></record></r>'.encode(), "xml", r"ENTITY declaration")
    _refused(f"<!doctype r><r><record><x>{SECRET}</x></record></r>".encode(), "xml", r"DOCTYPE")


def test_xml_mixed_record_tags() -> None:
    data = f"<r><record><x>1</x></record><record><x>2</x></record><row><x>{SECRET}</x></row></r>".encode()
    _refused(data, "xml", r"record 3: element <row>, expected <record> like record 1")


def test_xml_duplicate_field_and_nesting() -> None:
    data = f'<r><record><field name="x">{SECRET}</field><x>2</x></record></r>'.encode()
    _refused(data, "xml", r"record 1, field 'x': named twice")
    _refused(f"<r><record><x><y>{SECRET}</y></x></record></r>".encode(), "xml", r"field 'x': holds elements")
    _refused(f"<r><record>{SECRET}<x>1</x></record></r>".encode(), "xml", r"record 1: text outside a field")


def test_xml_malformed_and_undefined_entity() -> None:
    _refused(f"<r><record><x>{SECRET}</y></record></r>".encode(), "xml", r"line 1, column \d+: not well-formed")
    # Python's own message would quote the entity's name
    _refused(f"<r><record><x>&{SECRET};</x></record></r>".encode(), "xml", r"undefined entity")


def test_xml_other_encoding_declared() -> None:
    data = f'<?xml version="1.0" encoding="Shift_JIS"?><r><record><x>{SECRET}</x></record></r>'.encode()
    _refused(data, "xml", r"names the encoding 'Shift_JIS'; only UTF-8")


# ---------------------------------------------------------------------------------------------
# formats


def test_format_of() -> None:
    assert format_of(Path("people.CSV"), None) == "csv"
    assert format_of(Path("a/b.Json"), None) == "json"
    assert format_of(Path("x.xml"), None) == "xml"
    assert format_of(Path("x.txt"), "JSON") == "json"
    assert format_of(Path("noext"), "xml") == "xml"


def test_unknown_extension() -> None:
    with pytest.raises(FileFormatError, match=r"people\.txt: .*extension '\.txt'; pass --in-format or --out-format"):
        format_of(Path("people.txt"), None)
    with pytest.raises(FileFormatError, match=r"no extension; pass --in-format"):
        format_of(Path("people"), None)


def test_bad_override(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match=r"unknown format 'xlsx': expected one of csv, json, xml"):
        format_of(Path("people.csv"), "xlsx")
    path = tmp_path / "people.csv"
    path.write_bytes(f"a\n{SECRET}\n".encode())
    with pytest.raises(FileFormatError, match="unknown format") as caught:
        read_table(path, "tsv")
    assert SECRET not in str(caught.value)


def test_read_override_beats_extension(tmp_path: Path) -> None:
    path = tmp_path / "people.txt"
    path.write_bytes(b'[{"a":"1"}]')
    assert read_table(path, "json").rows == (("1",),)


def test_table_validates_rows() -> None:
    with pytest.raises(ValueError, match="row 2 has 1 values where the table has 2 columns"):
        Table(("a", "b"), (("1", "2"), ("3",)))
    with pytest.raises(ValueError, match="appears at positions 1 and 2"):
        Table(("a", "a"), ())
    with pytest.raises(ValueError, match="at least one column"):
        Table((), ())


# ---------------------------------------------------------------------------------------------
# determinism


def _fifty() -> Table:
    return Table(("id", "名前"), tuple((str(i), f"人{i}") for i in range(50)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_seed_same_bytes(fmt: str) -> None:
    table = _fifty()
    assert render_table(table, fmt, seed=SEED) == render_table(table, fmt, seed=SEED)


def test_order_is_a_seeded_permutation() -> None:
    table = _fifty()
    one = shuffled(table.rows, SEED)
    two = shuffled(table.rows, b"another seed")
    assert sorted(one) == sorted(table.rows)
    assert one != list(table.rows)
    assert one != two
    back = parse_table(render_table(table, "csv", seed=SEED), "csv")
    assert list(back.rows) == one


def test_order_does_not_depend_on_input_order() -> None:
    table = _fifty()
    reversed_table = Table(table.columns, tuple(reversed(table.rows)))
    for fmt in FORMATS:
        assert render_table(table, fmt, seed=SEED) == render_table(reversed_table, fmt, seed=SEED)


def test_identical_rows_are_kept_and_stable() -> None:
    rows = (("a", None), ("b", "1"), ("a", None), ("c", "2"), ("a", None))
    out = shuffled(rows, SEED)
    assert Counter(out) == Counter(rows)
    positions = [i for i, row in enumerate(out) if row == ("a", None)]
    assert positions == list(range(positions[0], positions[0] + 3))  # equal rows sort together
    # the sort is stable: equal keys keep their input order (checked on distinguishable objects)
    first, second = tuple(["a", None]), tuple(["a", None])  # built at run time: two objects
    assert first is not second
    out_ids = [id(row) for row in shuffled([first, ("z", "9"), second], SEED) if row == ("a", None)]
    assert out_ids == [id(first), id(second)]


def test_canonical_encoding_is_unambiguous() -> None:
    # the same characters split differently across columns, NULL against "null", "" against NULL
    rows: list[tuple[str | None, ...]] = [("a,b", "c"), ("a", "b,c"), (None, "x"), ("null", "x"), ("", "x"), ("ab",)]
    assert len({_canonical(row) for row in rows}) == len(rows)
    orders = {tuple(shuffled(rows, seed.encode())) for seed in ("1", "2", "3", "4", "5", "6")}
    assert len(orders) > 1


# ---------------------------------------------------------------------------------------------
# atomic writes and XML characters


def test_write_into_missing_directory(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out.csv"
    with pytest.raises(OSError):
        write_table(_fifty(), target, seed=SEED)
    assert not target.parent.exists()
    assert os.listdir(tmp_path) == []


def test_failed_render_leaves_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "out.xml"
    target.write_bytes(b"previous release")
    bad = Table(("name", "note"), (("x", "fine"), ("y", f"{SECRET}\x01")))
    message = r"column 'note': 1 value\(s\) hold a character XML 1\.0 cannot hold"
    with pytest.raises(FileFormatError, match=message) as caught:
        write_table(bad, target, seed=SEED)
    assert SECRET not in str(caught.value)
    assert "\x01" not in str(caught.value)
    assert target.read_bytes() == b"previous release"
    assert os.listdir(tmp_path) == ["out.xml"]


def test_write_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    write_table(_fifty(), target, seed=SEED)
    assert target.read_bytes() == render_table(_fifty(), "json", seed=SEED)
    assert os.listdir(tmp_path) == ["out.json"]


def test_xml_refuses_other_non_characters_but_csv_json_keep_them() -> None:
    for bad in ("\x00", "\x1f", "\ufffe", "\uffff"):
        table = Table(("c",), ((f"a{bad}b",),))
        with pytest.raises(FileFormatError, match="column 'c'"):
            render_table(table, "xml", seed=SEED)
    ok = Table(("c",), (("tab\there\nnew\rline",),))
    assert parse_table(render_table(ok, "xml", seed=SEED), "xml").rows == ok.rows
    control = Table(("c",), (("a\x01b",),))
    assert parse_table(render_table(control, "json", seed=SEED), "json").rows == control.rows
    assert parse_table(render_table(control, "csv", seed=SEED), "csv").rows == control.rows


def test_unpaired_surrogate_names_the_column() -> None:
    table = Table(("ok", "bad"), (("x", "\ud800"),))
    with pytest.raises(FileFormatError, match=r"column 'bad': a value is not encodable as UTF-8"):
        render_table(table, "csv", seed=SEED)
