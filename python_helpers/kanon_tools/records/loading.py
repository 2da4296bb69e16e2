"""A table read from a file (files.Table: every value text or NULL) loaded into DuckDB, typed as
the configuration says, for kanon's macros to release (issue 14, ADR 11).

A file carries no types, and a release needs some: bins cut numbers, a date generalizes by month
and year. Each column is loaded as text unless the configuration gives it a type:

    text      as written (the default)
    integer   a whole number (BIGINT)
    number    a number (DOUBLE)
    date      a calendar date, written 2024-04-01 or 2024/04/01

Values of an integer, number or date column are NFKC-normalized first, so full-width digits and
signs (４２, －３) read as the numbers they are; text columns are loaded exactly as written (the
hint packs observe mixed forms there, and normalizing is the user's decision). Surrounding
spaces are left as they are, so ' 42' is not an integer. A value that is not of its column's
type refuses the load with `LoadError` (the command's configuration error) naming the column and
how many values failed, never a value: loading it as NULL would publish a different table than
the one handed in, and silently.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from kanon_tools.records.files import Table
from kanon_tools.warehouse import quote_ident

# the configuration's type -> the SQL reading a text column {v} as that type (NULL where it is not)
TYPES: Mapping[str, str] = {
    "text": "{v}",
    # the shape first: DuckDB's cast alone would round 4.5 to 5 and read ' 42' as 42
    "integer": "case when regexp_full_match({v}, '[+-]?[0-9]+') then try_cast({v} as bigint) end",
    "number": "case when regexp_full_match({v}, '[+-]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][+-]?[0-9]+)?') "
              "then try_cast({v} as double) end",
    "date": "cast(coalesce(try_strptime({v}, '%Y-%m-%d'), try_strptime({v}, '%Y/%m/%d')) as date)",
}


class LoadError(ValueError):
    """The table does not fit its configuration: an unknown column or type, or values not of
    their column's type (counted, never shown)."""


@dataclass(frozen=True)
class Loaded:
    """What load_table created: the relation (quoted, schema.name), its rows and columns."""

    relation: str
    rows: int
    columns: tuple[str, ...]


def load_table(con: Any, table: Table, *, schema: str, name: str,
               types: Mapping[str, str] | None = None) -> Loaded:
    """Create (or replace) schema.name in the DuckDB connection `con` holding `table`, each column
    of the type `types` gives it (text by default). Raises LoadError before anything is created."""
    types = dict(types or {})
    unknown = [column for column in types if column not in table.columns]
    if unknown:
        raise LoadError(f"the configuration types column(s) the file does not have: {', '.join(map(repr, unknown))}")
    for column, kind in types.items():
        if kind not in TYPES:
            raise LoadError(f"column {column!r}: type {kind!r} is not one of {', '.join(TYPES)}")
    typed = {column: types.get(column, "text") for column in table.columns}
    # positional names in Arrow and in the view: the file's own names go only into the final
    # table, quoted, whatever they hold (spaces, quotes, Japanese)
    arrays = []
    for i, column in enumerate(table.columns):
        values = [row[i] for row in table.rows]
        if typed[column] != "text":
            values = [None if value is None else unicodedata.normalize("NFKC", value) for value in values]
        arrays.append(pa.array(values, type=pa.string()))
    raw = pa.table(arrays, names=[f"c{i}" for i in range(len(table.columns))])
    view = "_kanon_records_raw"
    con.register(view, raw)
    try:
        failures = _failures(con, view, table.columns, typed)
        if failures:
            raise LoadError("values not of their column's type (see the configuration's types): " + "; ".join(
                f"column {column!r}: {count} of {non_null} non-null value(s) are not {typed[column]}"
                for column, (count, non_null) in failures.items()))
        selects = [f"{_read(i, typed[column])} as {quote_ident(column)}" for i, column in enumerate(table.columns)]
        relation = f"{quote_ident(schema)}.{quote_ident(name)}"
        con.execute(f"create schema if not exists {quote_ident(schema)}")
        con.execute(f"create or replace table {relation} as select {', '.join(selects)} from {view}")
    finally:
        con.unregister(view)
    return Loaded(relation, len(table.rows), table.columns)


def load_hierarchy(con: Any, rows: Sequence[Sequence[str]], *, schema: str, name: str) -> str:
    """Create (or replace) schema.name in the DuckDB connection `con` holding a hierarchy's rows,
    in their order, as text columns level_0 .. level_n; the relation (quoted) is returned.

    One statement from an Arrow table: a prefix hierarchy has a row per distinct value of its
    column (600,000 in a million postal codes), which row-at-a-time inserts took minutes to write."""
    depth = len(rows[0])
    levels = list(zip(*rows, strict=True))
    frame = pa.table([pa.array(labels, type=pa.string()) for labels in levels],
                     names=[f"level_{n}" for n in range(depth)])
    relation = f"{quote_ident(schema)}.{quote_ident(name)}"
    view = "_kanon_records_hierarchy"
    con.register(view, frame)
    try:
        con.execute(f"create or replace table {relation} as select * from {view}")
    finally:
        con.unregister(view)
    return relation


def _read(index: int, kind: str) -> str:
    """The SQL reading positional column c<index> as `kind`."""
    return TYPES[kind].format(v=f"c{index}")


def _failures(con: Any, view: str, columns: tuple[str, ...], typed: Mapping[str, str]) -> dict[str, tuple[int, int]]:
    """{column: (values that are not of its type, its non-null values)} for the typed columns that have any."""
    checks = [(i, column) for i, column in enumerate(columns) if typed[column] != "text"]
    if not checks:
        return {}
    parts = []
    for i, column in checks:
        parts.append(f"count(*) filter (where c{i} is not null and {_read(i, typed[column])} is null)")
        parts.append(f"count(c{i})")
    [counts] = con.execute(f"select {', '.join(parts)} from {view}").fetchall()
    found = {}
    for n, (_, column) in enumerate(checks):
        failed, non_null = int(counts[2 * n]), int(counts[2 * n + 1])
        if failed:
            found[column] = (failed, non_null)
    return found
