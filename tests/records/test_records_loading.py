"""kanon_tools.records.loading: a file's table into DuckDB, typed by the configuration (issue 14),
and the hierarchies beside it in one statement each (issue 49). DuckDB, no dbt."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from kanon_tools.records import engine
from kanon_tools.records.config import parse_config, prefix_rows
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


class _Spy:
    """A DuckDB connection that records the statements Workspace.load sends through it."""

    def __init__(self, connection: Any, statements: list[tuple[str, str]]) -> None:
        self._connection, self._statements = connection, statements

    def execute(self, sql: str, *args: Any) -> Any:
        self._statements.append(("execute", sql))
        return self._connection.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        self._statements.append(("executemany", sql))
        return self._connection.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


def test_each_hierarchy_is_loaded_in_one_statement_holding_the_rows_one_by_one_inserts_held(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 49: a prefix hierarchy has a row per distinct value (600,000 in a million postal
    codes), and inserting them a row at a time took most of a 581-second release. Each hierarchy
    is now one statement, and its table holds what the row-at-a-time inserts wrote: the same
    rows in the same order, every level text."""
    codes = [f"{p:03d}-{s:04d}" for p in (100, 150, 730) for s in range(0, 10_000, 7)]
    values = [*codes, "１００－０００２", "〒150-0002", None, codes[0]]  # full width, a mark, a gap, a repeat
    prefectures = (("東京都", "関東", "*"), ("広島県", "中国", "*"), ("北海道", "北海道", "*"))
    table = Table(("zip", "pref", "income"),
                  tuple((zip_code, prefectures[i % 3][0], str(i)) for i, zip_code in enumerate(values)))
    config = parse_config({"k": 2, "l": 2, "columns": {
        "zip": {"role": "quasi_identifier", "prefix": [3, 1]},
        "pref": {"role": "quasi_identifier", "hierarchy": {"rows": [list(r) for r in prefectures]}},
        "income": "sensitive"}}, table.columns, base=tmp_path)
    statements: list[tuple[str, str]] = []
    real_connect = engine.duckdb.connect
    monkeypatch.setattr(engine.duckdb, "connect", lambda *a, **k: _Spy(real_connect(*a, **k), statements))
    ws = engine.Workspace.create(tmp_path / "work")
    ws.load(table, config)
    monkeypatch.undo()

    assert [kind for kind, _ in statements if kind != "execute"] == []  # nothing a row at a time
    for index in (0, 1):
        name = engine.hierarchy_table(index)
        assert sum(1 for _, sql in statements if name in sql) == 1, name
    expected = {0: prefix_rows(values, [3, 1]), 1: prefectures}
    assert len(expected[0]) == len(codes) + 2
    with duckdb.connect() as reference, ws.connect() as loaded:
        for index, rows in expected.items():  # what the row-at-a-time load wrote, as it wrote it
            columns = ", ".join(f"level_{n} varchar" for n in range(len(rows[0])))
            reference.execute(f"create table h ({columns})")
            reference.executemany(f"insert into h values ({', '.join('?' * len(rows[0]))})", [list(r) for r in rows])
            relation = f'"main"."{engine.hierarchy_table(index)}"'
            assert loaded.execute(f"select * from {relation}").fetchall() == reference.execute(
                "select * from h").fetchall()
            assert loaded.execute(f"describe {relation}").fetchall() == reference.execute("describe h").fetchall()
            reference.execute("drop table h")
