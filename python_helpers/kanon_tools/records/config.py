"""The configuration of a file release (`records inspect` writes it, the user edits it, `plan` and
`run` read it): one JSON object, checked whole before anything runs (issue 14, ADR 11).

    {
      "version": 1,
      "k": 5,                        # every class of published records describes >= k people
      "l": 2,                        # optional: sensitive columns l-diverse ("diversity": distinct|entropy)
      "max_suppression": 0.05,       # share of records (or people, "suppression_unit") that may be dropped
      "privacy_unit": null,          # optional: the column saying who a record is about
      "loss": "non_uniform_entropy", # discernibility | height
      "missing_value_policy": "star",
      "shuffle_seed": "kanon",       # orders the written rows; same seed, same bytes
      "columns": {
        "氏名": "drop",
        "患者ID": {"role": "identifier", "pseudonym": true},
        "生年月日": {"role": "quasi_identifier", "type": "date", "date": ["month", "year"]},
        "郵便番号": {"role": "quasi_identifier", "prefix": [3, 1]},
        "都道府県": {"role": "quasi_identifier", "hierarchy": {"rows": [["北海道", "北海道", "*"], ...]}},
        "年齢": {"role": "quasi_identifier", "type": "integer", "bins": [[0, 20, 40, 65], [0, 40]]},
        "病名": "sensitive",
        "evidence": ...              # (inside a column) what inspect saw; ignored by plan and run
      }
    }

Every column of the file must be declared, and no other (an undeclared column could identify
someone). A column is a role name or an object with `role` and, as the role allows:

  type        text (default), integer, number or date: how the file's text is read (loading.py)
  hierarchy   quasi-identifiers: {"rows": [[leaf, ..., root], ...]} inline, or {"file": "h.csv"}
              (a CSV, relative to the configuration, one row per leaf, leaf first, root last)
  prefix      quasi-identifiers: lengths of the value's digits to keep, finest first ([3, 1]:
              100-0001 -> 100* -> 1* -> *), built into a hierarchy from the file's own values
  bins        quasi-identifiers of type integer or number: kanon's edge lists, finest first
  date        quasi-identifiers of type date: levels among day, month, quarter, year, finest first
  pseudonym   identifiers: true replaces the value by its keyed hash (run --key FILE)
  evidence, suggestions, note   what inspect wrote: shown back, never used

A misfit raises `ConfigError` (exit 2) naming the column and the key, never a value of the data.

Everything kanon's macros would refuse about a configuration (and the file's header) is checked
here, before the warehouse starts, so that a mistake costs no dbt run: k a whole number from 2 to
2147483647, l from 2, max_suppression a share; column names not blank, not differing only in
letter case (DuckDB would rename one), not starting with _k_ or _kanon_ (kanon's own); bins lists
of finite numbers, each strictly increasing and keeping only edges of the one before; date levels
known, each once, finest first; prefix lengths positive and decreasing; a hierarchy rectangular,
with non-blank labels, one root, each leaf in one row, each label one parent at the level above,
and a label at two levels only when it stands for the same leaves at both (`65+, 65+, *` is fine;
a leaf `10100` under `10101` while the leaf `10101` is under `10100` is refused); the privacy
unit a declared identifier or dropped column.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kanon_tools.records.loading import TYPES

VERSION = 1
ROLES: tuple[str, ...] = ("identifier", "quasi_identifier", "sensitive", "keep", "drop")
GENERALIZER_KEYS: tuple[str, ...] = ("hierarchy", "prefix", "bins", "date")
DATE_LEVELS: tuple[str, ...] = ("day", "month", "quarter", "year")
DIVERSITIES: tuple[str, ...] = ("distinct", "entropy")
LOSSES: tuple[str, ...] = ("non_uniform_entropy", "discernibility", "height")
MISSING_POLICIES: tuple[str, ...] = ("star", "suppress")
SUPPRESSION_UNITS: tuple[str, ...] = ("records", "people")
INFORMATIONAL_KEYS: tuple[str, ...] = ("evidence", "suggestions", "note")
TOP_KEYS: tuple[str, ...] = ("version", "k", "l", "diversity", "max_suppression", "suppression_unit", "privacy_unit",
                             "loss", "missing_value_policy", "shuffle_seed", "columns", "note")
DEFAULT_K = 5
MAX_K = 2147483647  # the audit trail records k as an integer
RESERVED_PREFIXES: tuple[str, ...] = ("_k_", "_kanon_")  # kanon's own column names
DEFAULT_MAX_SUPPRESSION = 0.05
ROOT_LABEL = "*"


# a hierarchy's rows, one per leaf: the leaf first, the root last
Rows = tuple[tuple[str, ...], ...]


class ConfigError(ValueError):
    """The configuration cannot be used as it is (exit 2); the message names keys and columns only."""


@dataclass(frozen=True)
class Column:
    """One column's declaration, checked: its role, how it is read, and its generalizer."""

    name: str
    role: str
    type: str = "text"
    hierarchy: Rows | None = None  # rows leaf..root, from "rows" or "file"
    prefix: tuple[int, ...] | None = None
    bins: tuple[tuple[float, ...], ...] | None = None
    date: tuple[str, ...] | None = None
    pseudonym: bool = False


@dataclass(frozen=True)
class Config:
    """A checked configuration: the release's settings and one Column per column of the file, in the file's order."""

    k: int
    columns: tuple[Column, ...]
    l: int | None = None  # noqa: E741 - the l of l-diversity
    diversity: str = "distinct"
    max_suppression: float = 0.0
    suppression_unit: str = "records"
    privacy_unit: str | None = None
    loss: str = "non_uniform_entropy"
    missing_value_policy: str = "star"
    shuffle_seed: str = "kanon"

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)

    def with_role(self, *roles: str) -> list[Column]:
        return [c for c in self.columns if c.role in roles]

    @property
    def pseudonymized(self) -> bool:
        return any(c.pseudonym for c in self.columns)


def read_config(path: Path, file_columns: Sequence[str]) -> Config:
    """The configuration at `path`, checked against the file's columns. OSError passes through."""
    data = path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        raw = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        where = f" (line {error.lineno})" if isinstance(error, json.JSONDecodeError) else ""
        raise ConfigError(f"{path.name}: not a UTF-8 JSON object{where}") from None
    return parse_config(raw, file_columns, base=path.parent, name=path.name)


def parse_config(raw: Any, file_columns: Sequence[str], *, base: Path, name: str = "configuration") -> Config:
    """Check a configuration object against the file's columns; hierarchy files are read relative to `base`."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{name}: must be a JSON object")
    unknown = sorted(set(raw) - set(TOP_KEYS))
    if unknown:
        raise ConfigError(f"{name}: unknown key(s) {', '.join(map(repr, unknown))}; expected {', '.join(TOP_KEYS)}")
    if raw.get("version", VERSION) != VERSION:
        raise ConfigError(f"{name}: version must be {VERSION}")
    try:
        check_header(file_columns)
    except ConfigError as error:
        raise ConfigError(f"{name}: {error}") from None
    k = _whole(raw.get("k", DEFAULT_K), f"{name}: k", minimum=2)
    if k > MAX_K:
        raise ConfigError(f"{name}: k must be at most {MAX_K} (the audit trail records it as an integer)")
    l_value = raw.get("l")
    if l_value is not None:
        l_value = _whole(l_value, f"{name}: l", minimum=2)
    share = raw.get("max_suppression", 0)
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share < 1 or math.isnan(share):
        raise ConfigError(f"{name}: max_suppression must be a share from 0 up to (not including) 1")
    settings = {key: _choice(raw, key, choices, default, name) for key, choices, default in (
        ("diversity", DIVERSITIES, "distinct"), ("suppression_unit", SUPPRESSION_UNITS, "records"),
        ("loss", LOSSES, "non_uniform_entropy"), ("missing_value_policy", MISSING_POLICIES, "star"))}
    seed = raw.get("shuffle_seed", "kanon")
    if not isinstance(seed, str) or not seed:
        raise ConfigError(f"{name}: shuffle_seed must be a non-empty string")
    declared = raw.get("columns")
    if not isinstance(declared, dict) or not declared:
        raise ConfigError(f"{name}: columns must be an object naming every column of the file")
    missing = [c for c in file_columns if c not in declared]
    extra = [c for c in declared if c not in file_columns]
    if missing or extra:
        parts = [f"the file's column(s) {', '.join(map(repr, missing))} have no role (every column needs one)"] * bool(
            missing) + [f"column(s) {', '.join(map(repr, extra))} are not in the file"] * bool(extra)
        raise ConfigError(f"{name}: " + "; ".join(parts))
    columns = tuple(_column(c, declared[c], base, name) for c in file_columns)
    unit = raw.get("privacy_unit")
    if unit is not None:
        if unit not in file_columns:
            raise ConfigError(f"{name}: privacy_unit {unit!r} is not a column of the file")
        if next(c for c in columns if c.name == unit).role not in ("identifier", "drop"):
            raise ConfigError(f"{name}: privacy_unit {unit!r} must have role identifier or drop (it says who a "
                              "record is about)")
    if settings["suppression_unit"] == "people" and unit is None:
        raise ConfigError(f"{name}: suppression_unit 'people' needs a privacy_unit")
    if not any(c.role == "quasi_identifier" for c in columns):
        raise ConfigError(f"{name}: no column is a quasi_identifier: there is nothing to generalize")
    if l_value is not None and not any(c.role == "sensitive" for c in columns):
        raise ConfigError(f"{name}: l is set but no column is sensitive")
    return Config(k=k, columns=columns, l=l_value, max_suppression=float(share), privacy_unit=unit,
                  shuffle_seed=seed, **settings)


def check_header(columns: Sequence[str]) -> None:
    """The file's column names as kanon can take them: none blank, none differing from another
    only in letter case (DuckDB would rename one, and kanon matches names regardless of case), none
    starting with _k_ or _kanon_ (kanon's own). Raises ConfigError naming the column."""
    seen: dict[str, str] = {}
    for position, column in enumerate(columns, start=1):
        if not column.strip():
            raise ConfigError(f"column {position} has a blank name: name every column")
        if column.lower().startswith(RESERVED_PREFIXES):
            raise ConfigError(f"column {column!r}: names starting with _k_ or _kanon_ are kanon's own; rename the "
                              "column")
        other = seen.setdefault(column.casefold(), column)
        if other != column:
            raise ConfigError(f"columns {other!r} and {column!r} differ only in letter case, which the warehouse "
                              "does not tell apart; rename one")


def _whole(value: Any, what: str, *, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"{what} must be a whole number of at least {minimum}")
    return value


def _choice(raw: Mapping[str, Any], key: str, choices: tuple[str, ...], default: str, name: str) -> str:
    value = raw.get(key, default)
    if value not in choices:
        raise ConfigError(f"{name}: {key} must be one of {', '.join(choices)}")
    return str(value)


def _column(column: str, spec: Any, base: Path, name: str) -> Column:
    where = f"{name}: column {column!r}"
    if isinstance(spec, str):
        spec = {"role": spec}
    if not isinstance(spec, dict):
        raise ConfigError(f"{where}: must be a role ({', '.join(ROLES)}) or an object with a role")
    allowed = {"role", "type", "pseudonym", *GENERALIZER_KEYS, *INFORMATIONAL_KEYS}
    unknown = sorted(set(spec) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}")
    role = spec.get("role")
    if role not in ROLES:
        raise ConfigError(f"{where}: role must be one of {', '.join(ROLES)}")
    kind = spec.get("type", "text")
    if kind not in TYPES:
        raise ConfigError(f"{where}: type must be one of {', '.join(TYPES)}")
    given = [key for key in GENERALIZER_KEYS if spec.get(key) is not None]
    if given and role != "quasi_identifier":
        raise ConfigError(f"{where}: {given[0]} generalizes a quasi_identifier, not a column of role {role}")
    if len(given) > 1:
        raise ConfigError(f"{where}: give one generalizer, not {' and '.join(given)}")
    pseudonym = spec.get("pseudonym", False)
    if not isinstance(pseudonym, bool) or (pseudonym and role != "identifier"):
        raise ConfigError(f"{where}: pseudonym must be true or false, and only on an identifier")
    out = Column(name=column, role=role, type=kind, pseudonym=pseudonym)
    if not given:
        return out
    key, value = given[0], spec[given[0]]
    if key == "prefix":
        lengths = _numbers(value, f"{where}: prefix", whole=True)
        if any(n < 1 for n in lengths) or any(a <= b for a, b in itertools.pairwise(lengths)):
            raise ConfigError(f"{where}: prefix must be positive lengths, strictly decreasing (finest first)")
        return _replace(out, prefix=tuple(int(n) for n in lengths))
    if key == "bins":
        if kind not in ("integer", "number"):
            raise ConfigError(f"{where}: bins cut numbers: give the column type integer or number")
        if not isinstance(value, list) or not value or not all(isinstance(edges, list) for edges in value):
            raise ConfigError(f"{where}: bins must be a non-empty list of edge lists, finest first, "
                              "e.g. [[0, 20, 40, 65], [0, 40]]")
        lists = [_numbers(edges, f"{where}: bins", whole=False) for edges in value]
        for number, edges in enumerate(lists, start=1):
            if any(a >= b for a, b in itertools.pairwise(edges)):
                raise ConfigError(f"{where}: bins list {number} must be strictly increasing")
            if number > 1 and not set(edges) <= set(lists[number - 2]):
                raise ConfigError(f"{where}: bins list {number} keeps edge(s) not in list {number - 1}: each coarser "
                                  "list keeps only edges of the one before, so that its bins merge whole bins")
        return _replace(out, bins=tuple(tuple(edges) for edges in lists))
    if key == "date":
        if kind != "date":
            raise ConfigError(f"{where}: date generalizes dates: give the column type date")
        if (not isinstance(value, list) or not value or any(v not in DATE_LEVELS for v in value)
                or any(DATE_LEVELS.index(a) >= DATE_LEVELS.index(b) for a, b in itertools.pairwise(value))):
            raise ConfigError(f"{where}: date must list levels among {', '.join(DATE_LEVELS)}, each once, finest first")
        return _replace(out, date=tuple(value))
    return _replace(out, hierarchy=_hierarchy(value, base, where))


def _replace(column: Column, **changes: Any) -> Column:
    return Column(**{**column.__dict__, **changes})


def _numbers(value: Any, what: str, *, whole: bool) -> list[float]:
    if not isinstance(value, list) or not value or any(
            isinstance(v, bool) or not isinstance(v, int if whole else int | float)
            or (isinstance(v, float) and not math.isfinite(v)) for v in value):
        raise ConfigError(f"{what} must be a non-empty list of {'whole' if whole else 'finite'} numbers")
    return list(value)


def _hierarchy(value: Any, base: Path, where: str) -> Rows:
    """A hierarchy's rows, leaf first and root last, checked as a tree (kanon checks it again)."""
    if isinstance(value, dict) and set(value) == {"file"} and isinstance(value["file"], str):
        path = base / value["file"]
        try:
            text = path.read_bytes().decode("utf-8-sig")
        except OSError as error:
            raise ConfigError(f"{where}: cannot read the hierarchy file {value['file']}: "
                              f"{error.strerror or error}") from None
        except UnicodeDecodeError:
            raise ConfigError(f"{where}: the hierarchy file {value['file']} is not UTF-8") from None
        rows = [row for row in csv.reader(io.StringIO(text, newline=""))][1:]  # the first row is a header
    elif isinstance(value, dict) and set(value) == {"rows"} and isinstance(value["rows"], list):
        rows = value["rows"]
    else:
        raise ConfigError(f"{where}: hierarchy must be " + '{"rows": [[leaf, ..., root], ...]} or {"file": "h.csv"}')
    if not rows or any(not isinstance(r, list) or len(r) < 2 or any(not isinstance(v, str) or not v.strip()
                                                                     for v in r) for r in rows):
        raise ConfigError(f"{where}: every hierarchy row needs a leaf and at least one level above it, "
                          "as non-blank strings")
    if len({len(r) for r in rows}) != 1:
        raise ConfigError(f"{where}: every hierarchy row must have the same number of levels")
    problem = hierarchy_problem([tuple(r) for r in rows])
    if problem:
        raise ConfigError(f"{where}: {problem}")
    return tuple(tuple(r) for r in rows)


def hierarchy_problem(rows: Sequence[Sequence[str]]) -> str | None:
    """What makes rectangular rows (leaf first, root last, non-blank labels) no hierarchy kanon
    publishes faithfully, or None: more than one root, a leaf in two rows, a label with two parents
    at the level above, or a label at two levels standing for different leaves there (a reader
    would take one for the other: `65+, 65+, *` is fine, a leaf `10100` under `10101` while the leaf
    `10101` is under `10100` is not). Counts only, never a label: leaves are values of the data."""
    # By columns and sets, not a set per label and level: a prefix hierarchy built from a big file
    # has a row per distinct value (600,000 in a million postal codes), and the checks are counts.
    levels = list(zip(*rows, strict=True))
    labels_at = [set(labels) for labels in levels]
    if len(labels_at[-1] if rows else ()) != 1:
        return "a hierarchy has one root (the last level holds one value)"
    if len(labels_at[0]) != len(rows):
        return "a leaf appears in more than one hierarchy row"
    two_parents = 0
    # from level 1: a leaf is in one row (checked above), so it has one parent
    for level in range(1, len(levels) - 1):
        links = set(zip(levels[level], levels[level + 1], strict=True))
        if len(links) > len(labels_at[level]):  # some label has two parents: count those that do
            two_parents += sum(1 for n in Counter(label for label, _ in links).values() if n > 1)
    if two_parents:
        return (f"{two_parents} hierarchy label(s) have more than one parent at the level above "
                "(the rows must form a tree)")
    # only a label found at two levels or more can stand for different leaves at them
    repeated = set().union(*(a & b for a, b in itertools.combinations(labels_at, 2)))
    leaves: dict[str, dict[int, set[str]]] = {}  # label -> level -> the leaves it stands for there
    for level, labels in enumerate(levels):
        if repeated.isdisjoint(labels):
            continue
        for leaf, label in zip(levels[0], labels, strict=True):
            if label in repeated:
                leaves.setdefault(label, {}).setdefault(level, set()).add(leaf)
    differing = sum(1 for at in leaves.values() if len({frozenset(s) for s in at.values()}) > 1)
    if differing:
        return (f"{differing} hierarchy label(s) stand for different leaves at different levels; a label may "
                "repeat across levels only for the same leaves (like 65+ then 65+)")
    return None


def prefix_rows(values: Sequence[str | None], lengths: Sequence[int]) -> Rows:
    """The hierarchy a prefix generalizer stands for, over the column's own values: each value,
    then the first n of its digits (NFKC, so full-width digits count) and '*', for each length,
    then the root. A tree by construction: a shorter prefix is a prefix of the longer one."""
    rows = []
    for value in sorted({v for v in values if v is not None}):
        digits = "".join(ch for ch in unicodedata.normalize("NFKC", value) if ch.isascii() and ch.isdigit())
        rows.append((value, *[digits[:n] + ROOT_LABEL for n in lengths], ROOT_LABEL))
    return tuple(rows)
