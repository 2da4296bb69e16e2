"""kanon_tools.records.loading: a file's table into DuckDB, typed by the configuration (issue 14).
In-memory DuckDB, no dbt."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from kanon_tools.records.files import Table
from kanon_tools.records.loading import TYPES, LoadError, load_table

COLUMNS = ("氏名", "age", "born", "score", "Postal Code", 'say "hi"')
ROWS: tuple[tuple[str | None, ...], ...] = (
    ("山田 太郎", "42", "1982-04-01", "1.5", "100-0001", "x"),
    ("ｶﾀｶﾅ", "４２", "1982/04/02", "－３", "１００-０００１", None),  # full-width digits and minus
    (None, None, None, None, None, "y"),
)
TYPED = {"age": "integer", "born": "date", "score": "number"}


@pytest.fixture
def con() -> Iterator[Any]:
    with duckdb.connect() as connection:
        yield connection


def test_typed_columns_are_read_as_their_types_and_text_as_written(con: Any) -> None:
    loaded = load_table(con, Table(COLUMNS, ROWS), schema="input people", name="the people", types=TYPED)
    assert loaded.relation == '"input people"."the people"' and loaded.rows == 3 and loaded.columns == COLUMNS
    types = dict(con.execute(
        "select column_name, data_type from information_schema.columns where table_schema = 'input people'").fetchall())
    assert types == {"氏名": "VARCHAR", "age": "BIGINT", "born": "DATE", "score": "DOUBLE", "Postal Code": "VARCHAR",
                     'say "hi"': "VARCHAR"}
    rows = con.execute(f"select * from {loaded.relation} order by age nulls last, born").fetchall()
    assert rows == [
        ("山田 太郎", 42, datetime.date(1982, 4, 1), 1.5, "100-0001", "x"),
        ("ｶﾀｶﾅ", 42, datetime.date(1982, 4, 2), -3.0, "１００-０００１", None),  # text untouched, numbers normalized
        (None, None, None, None, None, "y"),
    ]


def test_a_load_replaces_the_table_of_an_earlier_one(con: Any) -> None:
    load_table(con, Table(COLUMNS, ROWS), schema="s", name="t")
    load_table(con, Table(("a",), (("1",),)), schema="s", name="t")
    assert con.execute('select * from "s"."t"').fetchall() == [("1",)]


@pytest.mark.parametrize(("kind", "bad"), [("integer", "4.5"), ("integer", " 42"), ("number", "1,5"),
                                           ("date", "2024-13-01"), ("date", "令和6年4月1日")])
def test_values_not_of_their_type_refuse_the_load_counted_never_shown(con: Any, kind: str, bad: str) -> None:
    table = Table(("id", "v"), (("SECRET-1", "SECRET-OK" if kind == "text" else bad), ("SECRET-2", None)))
    with pytest.raises(LoadError) as refused:
        load_table(con, table, schema="s", name="t", types={"v": kind})
    message = str(refused.value)
    assert f"column 'v': 1 of 1 non-null value(s) are not {kind}" in message
    assert bad not in message and "SECRET" not in message
    assert con.execute("select count(*) from information_schema.tables where table_name = 't'").fetchall() == [(0,)]


def test_an_unknown_column_or_type_is_a_configuration_error(con: Any) -> None:
    table = Table(("a",), (("1",),))
    with pytest.raises(LoadError, match="does not have: 'b'"):
        load_table(con, table, schema="s", name="t", types={"b": "integer"})
    with pytest.raises(LoadError, match="type 'int' is not one of text, integer, number, date"):
        load_table(con, table, schema="s", name="t", types={"a": "int"})
    assert set(TYPES) == {"text", "integer", "number", "date"}
