"""Tables in and out of files for the record release (issue 14): CSV, JSON and XML, UTF-8.

People without a warehouse hand the release a file and get a file back. This module reads such a
file into a `Table` (every value a string or NULL) and writes a released `Table` out, in one of
three formats chosen by the file's extension (``.csv``, ``.json``, ``.xml``, any case) or by an
explicit format (``--in-format`` / ``--out-format``).

Encoding
========

Files are UTF-8. A leading UTF-8 byte order mark (BOM) is accepted and dropped on reading, since
Excel on Windows writes one; files are written without it. Bytes that are not UTF-8 are refused,
naming the byte offset of the first bad byte (never the bytes).

CSV
===

Read: RFC 4180 style, as Python's ``csv`` module reads it (strict mode). The first row is the
header; column names are taken exactly as written (not trimmed), must be non-empty and unique.
Fields may be quoted with ``"``; a quoted field may hold commas, ``""`` (one quote) and line
breaks. Lines may end in LF or CRLF. Every row must have as many fields as the header. Empty lines
at the end of the file are ignored; an empty line before the last row is refused. Values are kept
exactly as written: no trimming, no type conversion. **An empty field is NULL**: CSV has no way to
tell an empty string from a missing value, so both read as NULL.

Written: the header, then one line per row, each ending in LF. A field is quoted only when it
holds a comma, a double quote, LF or CR (quotes doubled inside), or when it is the only field of
its row and is empty (``""``, so the line is not blank). NULL is an empty field; so is the empty
string, which CSV cannot write distinctly (the release never needs to).

JSON
====

Read: a top-level array of objects, one object per record. The columns are the keys in the
order they are first seen across the records; a key missing from a record is NULL there. Values:
a string as is; ``null`` is NULL; ``true`` and ``false`` become ``"true"`` and ``"false"``; a
number becomes its text exactly as written in the file (``1.50`` stays ``"1.50"``, ``1e3`` stays
``"1e3"``). Refused: anything other than an array of objects at the top, a nested object or array
as a value, a key repeated within one object, an empty key, ``NaN`` and ``Infinity`` (not JSON),
and an array with no keys at all (no columns).

Written (every value a string or null, keys in column order, no spaces, non-ASCII as is)::

    [
    {"a":"1","b":null},
    {"a":"2","b":"東京都"}
    ]

XML
===

Read::

    <records>
      <record>
        <field name="a">1</field>
        <field name="b" null="true"/>
      </record>
    </records>

The root element may have any name; its children are the records and must all have the same
name (any). A record's children are its fields: a field's column is its ``name`` attribute, or,
without one, its element name, so the element-per-column form ``<record><a>1</a></record>`` is
read too. ``null="true"`` makes a field NULL (``null="false"`` is allowed and means nothing); an
empty element without it is the empty string. Columns are in first-seen order; a field missing
from a record is NULL there. Other attributes are ignored; comments and processing instructions
are skipped. Refused: a DOCTYPE or ENTITY declaration anywhere in the text (searched for before
parsing, case-insensitively: entity declarations are how entity-expansion attacks, "billion
laughs", and external entity reads work, and a table has no need for them), an XML declaration
naming an encoding other than UTF-8, records with different element names, a field with child
elements, a field named twice in one record, an empty field name, namespaced elements, text
outside the fields, and a document with no fields at all.

Written exactly as above: the declaration ``<?xml version="1.0" encoding="UTF-8"?>``, two spaces
of indentation per level, LF line ends, every field as ``<field name="...">...</field>`` (the
empty string as ``<field name="a"></field>``, NULL as ``<field name="a" null="true"/>``). Text is
escaped with ``xml.sax.saxutils`` (``&``, ``<``, ``>``, and CR as ``&#13;`` so it survives a
parser's line-end normalization); names with ``quoteattr``. A character XML 1.0 cannot hold
(control characters other than tab, LF and CR; U+FFFE, U+FFFF; unpaired surrogates) is refused,
naming the column, rather than silently dropped.

Row order and atomic writes
===========================

Written rows are in a deterministic shuffled order (see `shuffled`), and a file is written to a
temporary file beside it and then renamed over the target (see `write_table`).

Privacy: no message raised here holds a value of the data. Messages name files, columns, keys,
line, record and byte numbers, and counts.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import hashlib
import io
import json
import os
import re
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.parsers.expat import ErrorString
from xml.sax.saxutils import escape, quoteattr

FORMATS: tuple[str, ...] = ("csv", "json", "xml")

Value = str | None
Row = tuple[Value, ...]


class FileFormatError(Exception):
    """The file cannot be read (or the table written) as that format; the message holds no value."""


@dataclass(frozen=True)
class Table:
    """Named columns and rows of strings or NULLs (None): what every format reads into and writes from.

    Rows are checked on construction (one value per column, each a str or None) so a malformed
    table fails where it is built, not halfway through writing a file.
    """

    columns: tuple[str, ...]
    rows: tuple[Row, ...]

    def __post_init__(self) -> None:
        if not self.columns:
            raise ValueError("a table needs at least one column")
        seen: dict[str, int] = {}
        for position, name in enumerate(self.columns, start=1):
            if not isinstance(name, str) or not name:
                raise ValueError(f"column {position}: a column name must be a non-empty string")
            if name in seen:
                raise ValueError(f"column {name!r} appears at positions {seen[name]} and {position}")
            seen[name] = position
        width = len(self.columns)
        for number, row in enumerate(self.rows, start=1):
            if not isinstance(row, tuple) or len(row) != width:
                size = len(row) if isinstance(row, tuple) else "not a tuple of"
                raise ValueError(f"row {number} has {size} values where the table has {width} columns")
            for column, value in zip(self.columns, row, strict=True):
                if value is not None and not isinstance(value, str):
                    raise ValueError(f"row {number}, column {column!r}: a value must be a str or None")


# ---------------------------------------------------------------------------------------------
# formats


def format_of(path: Path, override: str | None) -> str:
    """The format to use for `path`: `override` when given (any case), else the file's extension."""
    if override is not None:
        chosen = override.lower()
        if chosen not in FORMATS:
            raise FileFormatError(f"unknown format {override!r}: expected one of {', '.join(FORMATS)}")
        return chosen
    suffix = path.suffix.lower()
    if suffix[1:] in FORMATS:
        return suffix[1:]
    found = f"the extension {path.suffix!r}" if path.suffix else "no extension"
    raise FileFormatError(
        f"{path.name}: cannot tell the format from {found}; "
        f"pass --in-format or --out-format ({', '.join(FORMATS)})"
    )


# ---------------------------------------------------------------------------------------------
# reading


def read_table(path: Path, fmt: str | None = None) -> Table:
    """Read `path` as `fmt` (default: from its extension). OSError passes through; bad content is FileFormatError."""
    chosen = format_of(path, fmt)
    return parse_table(path.read_bytes(), chosen, name=path.name)


def parse_table(data: bytes, fmt: str, *, name: str = "input") -> Table:
    """Parse the bytes of a file in format `fmt`; `name` (a file name) starts every error message."""
    chosen = format_of(Path(name), fmt)
    text = _decode(data, name)
    if chosen == "csv":
        return _read_csv(text, name)
    if chosen == "json":
        return _read_json(text, name)
    return _read_xml(text, name)


def _decode(data: bytes, name: str) -> str:
    """UTF-8 without its BOM; the error names the offset in the file's bytes, never the bytes."""
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        raise FileFormatError(f"{name}: not UTF-8: an invalid byte at offset {start + error.start}") from None


def _check_header(names: Sequence[str], name: str, where: str) -> None:
    seen: dict[str, int] = {}
    for position, column in enumerate(names, start=1):
        if not column:
            raise FileFormatError(f"{name}, {where}: column {position} has an empty name")
        if column in seen:
            raise FileFormatError(
                f"{name}, {where}: the column {column!r} appears twice, at positions {seen[column]} and {position}"
            )
        seen[column] = position


def _read_csv(text: str, name: str) -> Table:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    records: list[tuple[int, list[str]]] = []  # (line the record starts on, fields)
    line = 1
    try:
        for fields in reader:
            records.append((line, fields))
            line = reader.line_num + 1
    except csv.Error as error:
        # csv's messages are fixed texts ("',' expected after '\"'", "unexpected end of data").
        raise FileFormatError(f"{name}, line {line}: not valid CSV: {error}") from None
    while records and not records[-1][1]:
        records.pop()
    if not records:
        raise FileFormatError(f"{name}: the file is empty: a header row is required")
    header_line, header = records[0]
    if not header:
        raise FileFormatError(f"{name}, line {header_line}: the header row is empty")
    _check_header(header, name, f"line {header_line}")
    width = len(header)
    rows: list[Row] = []
    for start, fields in records[1:]:
        if not fields:
            raise FileFormatError(f"{name}, line {start}: an empty line before the end of the file")
        if len(fields) != width:
            raise FileFormatError(f"{name}, line {start}: {len(fields)} fields where the header has {width}")
        rows.append(tuple(value if value != "" else None for value in fields))
    return Table(tuple(header), tuple(rows))


class _JsonNumber(str):
    """A JSON number's text as written; a subclass only so messages can say "a number"."""


@dataclass(frozen=True)
class _JsonObject:
    """A JSON object's key/value pairs in file order, duplicates kept so they can be refused."""

    pairs: tuple[tuple[str, Any], ...]


def _json_constant(text: str) -> Any:
    raise FileFormatError(f"{text} is not a JSON value")


def _describe(value: Any) -> str:
    if isinstance(value, _JsonObject):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, _JsonNumber):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    return "true" if value else "false"


def _read_json(text: str, name: str) -> Table:
    try:
        document = json.loads(
            text,
            parse_float=_JsonNumber,
            parse_int=_JsonNumber,
            parse_constant=_json_constant,
            object_pairs_hook=lambda pairs: _JsonObject(tuple(pairs)),
        )
    except json.JSONDecodeError as error:
        # error.msg is a fixed text ("Expecting ',' delimiter"); error.doc is the data: not shown.
        where = f"{name}, line {error.lineno}, column {error.colno}"
        raise FileFormatError(f"{where}: not valid JSON: {error.msg}") from None
    except FileFormatError as error:
        raise FileFormatError(f"{name}: {error}") from None
    except RecursionError:
        raise FileFormatError(f"{name}: not valid JSON here: nested too deeply") from None
    if not isinstance(document, list):
        raise FileFormatError(f"{name}: {_describe(document)}, expected an array of objects")
    columns: dict[str, None] = {}
    records: list[dict[str, Value]] = []
    for number, item in enumerate(document, start=1):
        if not isinstance(item, _JsonObject):
            raise FileFormatError(f"{name}, record {number}: {_describe(item)}, expected an object")
        record: dict[str, Value] = {}
        for key, value in item.pairs:
            if not key:
                raise FileFormatError(f"{name}, record {number}: an empty key")
            if key in record:
                raise FileFormatError(f"{name}, record {number}: the key {key!r} appears twice")
            if isinstance(value, _JsonObject | list):
                raise FileFormatError(
                    f"{name}, record {number}, key {key!r}: {_describe(value)}, "
                    "expected a string, number, true, false or null"
                )
            if value is None or isinstance(value, str):
                record[key] = None if value is None else str(value)
            else:
                record[key] = "true" if value else "false"
            columns.setdefault(key)
        records.append(record)
    if not columns:
        raise FileFormatError(f"{name}: no records with keys, so no columns")
    names = tuple(columns)
    return Table(names, tuple(tuple(record.get(column) for column in names) for record in records))


_DECLARATION = re.compile(r"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)
_ENCODING = re.compile(r"""\A\s*<\?xml[^>]*?\bencoding\s*=\s*["']([^"']*)["']""")
_UTF8_NAMES = frozenset({"utf-8", "utf8", "us-ascii", "ascii"})


def _blank(text: str | None) -> bool:
    return text is None or not text.strip()


def _read_xml(text: str, name: str) -> Table:
    found = _DECLARATION.search(text)
    if found:
        raise FileFormatError(
            f"{name}: a {found.group(1).upper()} declaration is refused "
            "(entity declarations allow entity-expansion attacks; a table needs none)"
        )
    declared = _ENCODING.match(text)
    if declared and declared.group(1).lower() not in _UTF8_NAMES:
        raise FileFormatError(
            f"{name}: the XML declaration names the encoding {declared.group(1)!r}; only UTF-8 is read"
        )
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        # str(error) may quote the document (an undefined entity's name): rebuild it from the code.
        line, offset = error.position
        raise FileFormatError(
            f"{name}, line {line}, column {offset + 1}: not well-formed XML: {ErrorString(error.code)}"
        ) from None
    if not _blank(root.text):
        raise FileFormatError(f"{name}: text directly inside the root element, outside any record")
    record_tag: str | None = None
    columns: dict[str, None] = {}
    records: list[dict[str, Value]] = []
    for number, element in enumerate(root, start=1):
        if element.tag.startswith("{"):
            raise FileFormatError(f"{name}, record {number}: namespaced elements are not read")
        if record_tag is None:
            record_tag = element.tag
        elif element.tag != record_tag:
            raise FileFormatError(
                f"{name}, record {number}: element <{element.tag}>, expected <{record_tag}> like record 1"
            )
        if not _blank(element.tail) or not _blank(element.text):
            raise FileFormatError(f"{name}, record {number}: text outside a field")
        record: dict[str, Value] = {}
        for field in element:
            if field.tag.startswith("{"):
                raise FileFormatError(f"{name}, record {number}: namespaced elements are not read")
            column = field.get("name", field.tag)
            where = f"{name}, record {number}, field {column!r}"
            if not column:
                raise FileFormatError(f"{name}, record {number}: a field with an empty name")
            if column in record:
                raise FileFormatError(f"{where}: named twice in one record")
            if len(field):
                raise FileFormatError(f"{where}: holds elements, expected text only")
            if not _blank(field.tail):
                raise FileFormatError(f"{name}, record {number}: text outside a field")
            null = field.get("null", "false")
            if null not in ("true", "false"):
                raise FileFormatError(f'{where}: the null attribute must be "true" or "false"')
            if null == "true":
                if field.text:
                    raise FileFormatError(f'{where}: null="true" on a field that has text')
                record[column] = None
            else:
                record[column] = field.text or ""
            columns.setdefault(column)
        records.append(record)
    if not columns:
        raise FileFormatError(f"{name}: no records with fields, so no columns")
    names = tuple(columns)
    return Table(names, tuple(tuple(record.get(column) for column in names) for record in records))


# ---------------------------------------------------------------------------------------------
# writing


def _canonical(row: Row) -> bytes:
    """An unambiguous encoding of a row: a JSON array, so no two different rows encode alike."""
    text = json.dumps(list(row), ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass")


def shuffled(rows: Iterable[Row], seed: bytes) -> list[Row]:
    """The rows ordered by SHA-256 of `seed` + the row's canonical encoding; equal rows keep their order.

    Why shuffle: input order often follows the source system's ids or times of entry, and a
    released row's position would point back to its person. Why by hash rather than at random:
    the same table and seed must give the same bytes on every run, so a release can be rebuilt
    and compared, and a re-run reveals nothing new. The order depends only on the rows and the
    seed, never on their input order; a different seed gives another order.
    """
    return sorted(rows, key=lambda row: hashlib.sha256(seed + _canonical(row)).digest())


def _csv_field(value: Value, alone: bool) -> str:
    if value is None or value == "":
        return '""' if alone else ""
    if any(c in value for c in ',"\n\r'):
        return '"' + value.replace('"', '""') + '"'
    return value


def _csv_line(values: Sequence[Value]) -> str:
    alone = len(values) == 1
    return ",".join(_csv_field(value, alone) for value in values) + "\n"


def _render_csv(table: Table, rows: Sequence[Row]) -> str:
    # Written by hand: the csv module leaves a lone CR unquoted when the line end is LF.
    return _csv_line(table.columns) + "".join(_csv_line(row) for row in rows)


def _render_json(table: Table, rows: Sequence[Row]) -> str:
    lines = [
        json.dumps(dict(zip(table.columns, row, strict=True)), ensure_ascii=False, separators=(",", ":"))
        for row in rows
    ]
    return "[\n" + ",\n".join(lines) + ("\n" if lines else "") + "]\n"


# Not a Char of XML 1.0: controls other than tab, LF, CR; surrogates; U+FFFE and U+FFFF.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _check_xml(table: Table) -> None:
    for position, column in enumerate(table.columns):
        if _NOT_XML.search(column):
            raise FileFormatError(f"column {position + 1}: the name holds a character XML 1.0 cannot hold")
        count = sum(1 for row in table.rows if row[position] is not None and _NOT_XML.search(row[position] or ""))
        if count:
            raise FileFormatError(
                f"column {column!r}: {count} value(s) hold a character XML 1.0 cannot hold "
                "(a control character other than tab, LF and CR); write CSV or JSON, or clean the column"
            )


def _render_xml(table: Table, rows: Sequence[Row]) -> str:
    _check_xml(table)
    names = [quoteattr(column) for column in table.columns]
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<records>\n']
    for row in rows:
        parts.append("  <record>\n")
        for attribute, value in zip(names, row, strict=True):
            if value is None:
                parts.append(f'    <field name={attribute} null="true"/>\n')
            else:
                parts.append(f"    <field name={attribute}>{escape(value, {chr(13): '&#13;'})}</field>\n")
        parts.append("  </record>\n")
    parts.append("</records>\n")
    return "".join(parts)


def render_table(table: Table, fmt: str, *, seed: bytes) -> bytes:
    """The bytes of `table` in format `fmt`, rows shuffled by `seed`: the same inputs, the same bytes."""
    chosen = format_of(Path("output"), fmt)
    rows = shuffled(table.rows, seed)
    if chosen == "csv":
        text = _render_csv(table, rows)
    elif chosen == "json":
        text = _render_json(table, rows)
    else:
        text = _render_xml(table, rows)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise FileFormatError(_unencodable(table)) from None


def _unencodable(table: Table) -> str:
    """Which column holds text UTF-8 cannot encode (an unpaired surrogate), without the text."""
    for position, column in enumerate(table.columns):
        for text in (column, *(row[position] for row in table.rows)):
            try:
                (text or "").encode("utf-8")
            except UnicodeEncodeError:
                if text is column:
                    return f"column {position + 1}: the name is not encodable as UTF-8 (an unpaired surrogate)"
                return f"column {column!r}: a value is not encodable as UTF-8 (an unpaired surrogate)"
    return "the table is not encodable as UTF-8"


def write_table(table: Table, path: Path, fmt: str | None = None, *, seed: bytes) -> None:
    """Write `table` to `path` as `fmt` (default: from the extension), rows shuffled by `seed`.

    The bytes are rendered first, then written to a temporary file in the same directory and
    renamed onto `path` (atomic on one file system). A failure at any point leaves `path` as it
    was and no temporary file behind: the tool must never leave a partial release on disk, where
    it could be mistaken for a whole one. The file is created with mode 0600 (owner only).
    """
    write_file(path, render_table(table, format_of(path, fmt), seed=seed))


def write_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically and owner-only (see write_table). OSError passes through."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
