"""Hint packs: JSON rules that suggest a role and a generalizer for a column, or check its values (issue 14).

A hint pack describes what columns of a given kind of file usually are: "a column named 郵便番号,
or whose values look like ``100-0001``, is a location quasi-identifier; generalize it by keeping
the first 3 digits". ``records inspect`` and ``records plan`` show what the packs say next to the
counts of each column. Packs only advise: **they never change a run**. The configuration the user
writes (or accepts) decides the roles; a generalizer in a suggestion is something to copy into it.

Nothing here returns, raises or logs a value of the data: suggestions, leak counts and
observations hold column names, rule ids, counts and shares only. Error messages name the pack
file, the rule (its index and id) and the pack's own content, never a cell.

Pack format
===========

A pack is one UTF-8 JSON object (a leading BOM is accepted)::

    {
      "pack": "japan",
      "version": 1,
      "rules": [ ... ],
      "hierarchies": {"prefecture_region": [["北海道", "北海道", "*"], ["青森県", "東北", "*"], ...]}
    }

``pack``
    The pack's name: 1 to 64 characters of ASCII letters, digits and ``_ . -``, starting with a
    letter or digit (rule and hierarchy names follow the same pattern).
``version``
    The format version, the integer 1.
``rules``
    A list of rules, each a JSON object with an ``id`` unique within the pack and a ``kind``.
``hierarchies`` (optional)
    Named hierarchies in kanon's format: each a non-empty list of rows, one per leaf, the leaf
    first and the root last. Every row has the same length (at least 2), every level holds
    non-empty strings, the last level holds a single value (one root), a leaf appears in one row
    only, a value of one level has one parent in the next (the rows form a tree), and a label at
    two levels stands for the same leaves at both (``65+``, ``65+``, ``*``), as a configuration's.

Rule kinds (keys other than those listed are refused):

``"suggest"``: ``id``, ``kind``, ``names``, ``shape``, ``values_in``, ``range``, ``min_share``,
``role``, ``generalizer``, ``why``::

    {"id": "jp.postal_code", "kind": "suggest", "names": ["郵便番号", "postal", "zip", "〒"],
     "shape": "'〒'? digit{3} '-'? digit{4}", "min_share": 0.9, "role": "quasi_identifier",
     "generalizer": {"type": "prefix", "lengths": [3, 1]}, "why": {"en": "...", "ja": "..."}}

    {"id": "jp.age", "kind": "suggest", "names": ["年齢", "age"], "shape": "digit{1,3}",
     "range": [0, 120], "min_share": 0.95, "role": "quasi_identifier", ...}

    At least one of three tests, and the column matches when **any** of them does:

    * ``names``: a non-empty list of non-empty strings, matched on the column's name, both
      NFKC-normalized and case-folded (``ﾌﾘｶﾞﾅ`` matches ``フリガナ``). A name beginning with
      an ASCII letter or digit matches at the start of a word of the column's name, words being
      split at anything but ASCII letters and digits and where camelCase turns upper (``age``
      matches ``age``, ``patient_age`` and ``ageBand`` but not ``message`` or ``page``; ``zip``
      matches ``zipcode``; ``my_number`` matches ``My Number`` and ``myNumber``). Any other name
      (Japanese ones) matches anywhere in it, since such names have no spaces between words.
    * ``shape``: a value shape (`kanon_tools.records.shapes`), tested with `Shape.fullmatch` on
      every non-null value after NFKC normalization (no trimming); it matches when there is at
      least one non-null value and the share of matching ones is at least ``min_share``.
    * ``values_in``: the name of a hierarchy of the same pack; it matches when there is at least
      one non-null value and the share of non-null values (NFKC-normalized) that are leaves of the
      hierarchy (NFKC-normalized) is at least ``min_share``.

    ``range`` (optional) is ``[low, high]``, two numbers with low <= high: the plausible values
    of what the rule names (ages from 0 to 120), since a shape cannot tell an age from any short
    number (an income in 万円, a count). It is a condition on every match, by name or by values:
    over the column's non-null values that read as a number after NFKC (an optional sign, digits,
    an optional decimal part: ``42``, ``４２``, ``-1.5``; ``42歳`` is none), the share within
    [low, high] must be at least ``min_share``. A column with no such value passes (a name like
    年齢 over values like ``42歳`` still matches); a column named ``age_days`` holding numbers
    up to 1000 does not.

    ``min_share`` is a number in (0, 1], default 0.9 (for the shape, the values and the range).
    ``role`` is required: identifier, quasi_identifier, sensitive, keep or drop. ``generalizer``
    is optional and only for role quasi_identifier.

``"leak"``: ``id``, ``kind``, ``detector``, ``why``. Turns on one detector of
`kanon_tools.records.identifiers` (my_number, card, phone, email), run on every column's values.

``"observe"``: ``id``, ``kind``, ``check``, ``why``. Turns on one check (`observe_column` has
their definitions): ``mixed_width``, ``era_date``, ``qi_declared_otherwise``.

``why`` (every rule): an object of language code to non-empty text. ``"en"`` is required; the
built-in pack must also have ``"ja"``.

Generalizers (suggestions only; their keys exactly these):

* ``{"type": "prefix", "lengths": [3, 1]}``: keep the first n characters of the value's digits;
  one or more positive integers, strictly decreasing (finest first).
* ``{"type": "hierarchy", "hierarchy": "prefecture_region"}``: a hierarchy of the same pack.
* ``{"type": "bins", "edges": [[0, 20, 40, 65, 120], [0, 65, 120]]}``: numeric edge lists,
  finest first, each non-empty and strictly increasing, each keeping only edges of the one
  before (as kanon's ``bins`` option wants them).
* ``{"type": "date", "levels": ["month", "year"]}``: truncations among day, month, quarter and
  year, finest first, each once (as kanon's ``date`` option).

A pack that breaks any of this raises `HintPackError` (a ValueError; the command exits with 2)
naming the pack file and the rule as ``rules[3] ('jp.age')``.

Several packs: the documented order
===================================

`select_packs` returns the packs in **the documented order**: the built-in pack first (unless
``--no-builtin-hints``), then every ``--hint-pack FILE`` in the order given on the command line.
Suggestions, leak detectors and observations follow that order, and within a pack the order of
its rules; a detector or check turned on by several leak or observe rules runs once, reported under
the first rule's id. A rule id may be used by one pack only: a pack reusing an id of an earlier pack (the
built-in one included) is refused, so a user pack can add rules but never silently replace one.

API: `load_pack`, `builtin_pack`, `parse_pack`, `select_packs`, `suggest_column`, `leak_rules`,
`scan_column`, `observe_column`, `era_date`.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kanon_tools.records.config import hierarchy_problem
from kanon_tools.records.identifiers import KINDS, scan_values
from kanon_tools.records.shapes import Shape, ShapeError, parse_shape

ROLES: tuple[str, ...] = ("identifier", "quasi_identifier", "sensitive", "keep", "drop")
RULE_KINDS: tuple[str, ...] = ("suggest", "leak", "observe")
CHECKS: tuple[str, ...] = ("mixed_width", "era_date", "qi_declared_otherwise")
GENERALIZERS: tuple[str, ...] = ("prefix", "hierarchy", "bins", "date")
DATE_LEVELS: tuple[str, ...] = ("day", "month", "quarter", "year")
DEFAULT_MIN_SHARE = 0.9
FORMAT_VERSION = 1

BUILTIN_PATH = Path(__file__).parent / "builtin_hints" / "japan.json"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
_PACK_KEYS = frozenset({"pack", "version", "rules", "hierarchies"})
_RULE_KEYS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "suggest": frozenset(
            {"id", "kind", "names", "shape", "values_in", "range", "min_share", "role", "generalizer", "why"}
        ),
        "leak": frozenset({"id", "kind", "detector", "why"}),
        "observe": frozenset({"id", "kind", "check", "why"}),
    }
)
_GENERALIZER_KEYS: Mapping[str, frozenset[str]] = MappingProxyType(
    {
        "prefix": frozenset({"type", "lengths"}),
        "hierarchy": frozenset({"type", "hierarchy"}),
        "bins": frozenset({"type", "edges"}),
        "date": frozenset({"type", "levels"}),
    }
)


class HintPackError(ValueError):
    """A hint pack that cannot be used: the message names the pack file and the rule (index and id)."""


@dataclass(frozen=True)
class SuggestRule:
    """A ``suggest`` rule, parsed: `names` NFKC-normalized and case-folded, `leaves` those of `values_in`."""

    id: str
    names: tuple[str, ...]
    shape: Shape | None
    values_in: str | None
    leaves: frozenset[str]
    min_share: float
    role: str
    generalizer: dict[str, Any] | None
    why: dict[str, str]
    kind: str = "suggest"
    range: tuple[float, float] | None = None


@dataclass(frozen=True)
class LeakRule:
    """A ``leak`` rule: turns on one detector of `kanon_tools.records.identifiers`."""

    id: str
    detector: str
    why: dict[str, str]
    kind: str = "leak"


@dataclass(frozen=True)
class ObserveRule:
    """An ``observe`` rule: turns on one check of `observe_column`."""

    id: str
    check: str
    why: dict[str, str]
    kind: str = "observe"


Rule = SuggestRule | LeakRule | ObserveRule


@dataclass(frozen=True)
class Pack:
    """A validated hint pack. `source` is the file it came from; `builtin` whether it is the built-in pack."""

    name: str
    version: int
    source: str
    builtin: bool
    rules: tuple[Rule, ...]
    hierarchies: Mapping[str, tuple[tuple[str, ...], ...]]

    def describe(self) -> str:
        """How messages name the pack: its name and file, or that it is the built-in pack."""
        return f"{self.name!r} (the built-in pack)" if self.builtin else f"{self.name!r} ({self.source})"


@dataclass(frozen=True)
class Evidence:
    """Why a suggest rule matched a column.

    `name_matched`: one of the rule's names is in the column's name. `shape_share` and
    `values_share`: the share of non-null values that fit the rule's shape, or are leaves of its
    hierarchy; None when the rule has no such test or the column has no non-null value.
    `checked`: the non-null values looked at. `range_share`: of the non-null values that read as
    numbers, the share within the rule's range; None when it has none or no value is a number.
    """

    name_matched: bool
    shape_share: float | None
    values_share: float | None
    checked: int
    range_share: float | None = None


@dataclass(frozen=True)
class Suggestion:
    """A suggest rule that matched a column: the role and generalizer it proposes, and the evidence."""

    rule_id: str
    role: str
    generalizer: dict[str, Any] | None
    evidence: Evidence
    why: dict[str, str]


@dataclass(frozen=True)
class Observation:
    """An observe rule that found something in a column: `count` of `of` values (1 of 1 for a declaration)."""

    rule_id: str
    check: str
    count: int
    of: int
    why: dict[str, str]


# ---------------------------------------------------------------------------------------------
# Loading and validating


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _words(text: str) -> list[str]:
    """The ASCII words of an NFKC-normalized name, lower-cased: runs of ASCII letters and digits,
    split again where camelCase turns upper (ageBand -> age, band)."""
    words: list[str] = []
    current = ""
    for i, c in enumerate(text):
        if not _ascii_alnum(c):
            if current:
                words.append(current)
            current = ""
            continue
        if current and c.isupper() and text[i - 1].islower():
            words.append(current)
            current = ""
        current += c.lower()
    if current:
        words.append(current)
    return words


def _name_matches(pattern: str, name: str, folded: str) -> bool:
    """Whether a rule's (folded) name matches a column's name (see the module docstring)."""
    if not _ascii_alnum(pattern[0]):
        return pattern in folded
    wanted = "_".join(_words(pattern))
    words = _words(unicodedata.normalize("NFKC", name))
    joined = "_".join(words)
    starts, at = [], 0
    for word in words:
        starts.append(at)
        at += len(word) + 1
    return bool(wanted) and any(joined.startswith(wanted, start) for start in starts)


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


class _Where:
    """Builds errors for one place in one pack."""

    def __init__(self, source: str, place: str = "") -> None:
        self.source = source
        self.place = place

    def error(self, problem: str) -> HintPackError:
        where = f"{self.place}: " if self.place else ""
        return HintPackError(f"hint pack {self.source}: {where}{problem}")


def _check_name(where: _Where, what: str, value: Any) -> str:
    if not isinstance(value, str) or not _NAME.fullmatch(value):
        raise where.error(
            f"{what} must be 1 to 64 ASCII letters, digits, '_', '.' or '-', starting with a letter or digit;"
            f" got {value!r}"
        )
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _unknown_keys(where: _Where, given: Iterable[str], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(given) - allowed)
    if unknown:
        shown, known = ", ".join(map(repr, unknown)), ", ".join(sorted(allowed))
        raise where.error(f"unknown key(s) {shown} in {what} (allowed: {known})")


def _hierarchy(where: _Where, rows: Any) -> tuple[tuple[str, ...], ...]:
    if not isinstance(rows, list) or not rows:
        raise where.error("a hierarchy must be a non-empty list of rows, one per leaf, leaf first and root last")
    depth: int | None = None
    parsed: list[tuple[str, ...]] = []
    for index, row in enumerate(rows):
        if not isinstance(row, list) or not all(isinstance(v, str) and v for v in row):
            raise where.error(f"row {index} must be a list of non-empty strings")
        if depth is None:
            depth = len(row)
            if depth < 2:
                raise where.error("rows must have at least 2 levels (a leaf and the root)")
        elif len(row) != depth:
            raise where.error(f"row {index} has {len(row)} levels, row 0 has {depth}: every row must have as many")
        parsed.append(tuple(row))
    assert depth is not None
    if len({row[-1] for row in parsed}) != 1:
        raise where.error("the last level must hold one value, the root")
    first_row: dict[str, int] = {}
    for level in range(depth - 1):
        parents: dict[str, tuple[str, int]] = {}
        for index, row in enumerate(parsed):
            if level == 0:
                if row[0] in first_row:
                    raise where.error(f"rows {first_row[row[0]]} and {index} have the same leaf: a leaf is in one row")
                first_row[row[0]] = index
            known = parents.setdefault(row[level], (row[level + 1], index))
            if known[0] != row[level + 1]:
                raise where.error(
                    f"rows {known[1]} and {index} give the same level-{level} value different parents"
                    " (the rows must form a tree)"
                )
    problem = hierarchy_problem(parsed)  # what is left: a label standing for different leaves at two levels
    if problem:
        raise where.error(problem)
    return tuple(parsed)


def _why(where: _Where, value: Any, builtin: bool) -> dict[str, str]:
    required = ("en", "ja") if builtin else ("en",)
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                              for k, v in value.items()):
        raise where.error("'why' must be an object of language code to non-empty text, with " + " and ".join(
            repr(r) for r in required))
    missing = [r for r in required if r not in value]
    if missing:
        pack = "the built-in pack" if builtin else "a pack"
        raise where.error(f"'why' lacks {' and '.join(map(repr, missing))}: {pack} explains every rule in "
                          + " and ".join(repr(r) for r in required))
    return dict(value)


def _generalizer(where: _Where, value: Any, hierarchies: Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise where.error("'generalizer' must be an object with a 'type'")
    kind = value.get("type")
    if kind not in GENERALIZERS:
        raise where.error(f"unknown generalizer type {kind!r} (types: {', '.join(GENERALIZERS)})")
    _unknown_keys(where, value, _GENERALIZER_KEYS[kind], f"a {kind} generalizer")
    if kind == "prefix":
        lengths = value.get("lengths")
        if (not isinstance(lengths, list) or not lengths or not all(_is_int(n) and n > 0 for n in lengths)
                or any(a <= b for a, b in itertools.pairwise(lengths))):
            raise where.error(f"prefix 'lengths' must be positive integers, strictly decreasing; got {lengths!r}")
    elif kind == "hierarchy":
        name = value.get("hierarchy")
        if not isinstance(name, str) or name not in hierarchies:
            raise where.error(f"generalizer hierarchy {name!r} is not a hierarchy of this pack"
                              f" (hierarchies: {', '.join(hierarchies) or 'none'})")
    elif kind == "bins":
        edges = value.get("edges")
        if not isinstance(edges, list) or not edges:
            raise where.error(f"bins 'edges' must be a non-empty list of edge lists; got {edges!r}")
        for index, level in enumerate(edges):
            if (not isinstance(level, list) or not level or not all(_is_number(e) for e in level)
                    or any(a >= b for a, b in itertools.pairwise(level))):
                raise where.error(f"bins 'edges' list {index} must be numbers, strictly increasing; got {level!r}")
            if index and not set(level) <= set(edges[index - 1]):
                raise where.error(f"bins 'edges' list {index} must keep only edges of list {index - 1}")
    else:
        levels = value.get("levels")
        order = [DATE_LEVELS.index(v) if v in DATE_LEVELS else -1 for v in levels] if isinstance(levels, list) else []
        if not order or min(order) < 0 or any(a >= b for a, b in itertools.pairwise(order)):
            raise where.error(f"date 'levels' must be among {', '.join(DATE_LEVELS)}, finest first, each once;"
                              f" got {levels!r}")
    return copy.deepcopy(value)


def _rule(source: str, index: int, raw: Any, hierarchies: Mapping[str, tuple[tuple[str, ...], ...]],
          builtin: bool) -> Rule:
    if not isinstance(raw, dict):
        raise _Where(source, f"rules[{index}]").error("a rule must be a JSON object")
    if "id" not in raw:
        raise _Where(source, f"rules[{index}]").error("missing 'id'")
    rule_id = _check_name(_Where(source, f"rules[{index}]"), "'id'", raw["id"])
    where = _Where(source, f"rules[{index}] ({rule_id!r})")
    kind = raw.get("kind")
    if kind not in RULE_KINDS:
        raise where.error(f"unknown kind {kind!r} (kinds: {', '.join(RULE_KINDS)})")
    _unknown_keys(where, raw, _RULE_KEYS[kind], f"a {kind} rule")
    why = _why(where, raw.get("why"), builtin)
    if kind == "leak":
        detector = raw.get("detector")
        if not isinstance(detector, str) or detector not in KINDS:
            raise where.error(f"unknown detector {detector!r} (detectors: {', '.join(KINDS)})")
        return LeakRule(rule_id, detector, why)
    if kind == "observe":
        check = raw.get("check")
        if check not in CHECKS:
            raise where.error(f"unknown check {check!r} (checks: {', '.join(CHECKS)})")
        return ObserveRule(rule_id, check, why)
    if not any(key in raw for key in ("names", "shape", "values_in")):
        raise where.error("a suggest rule needs at least one of 'names', 'shape' and 'values_in'")
    names: tuple[str, ...] = ()
    if "names" in raw:
        given = raw["names"]
        if not isinstance(given, list) or not given or not all(isinstance(n, str) and n for n in given):
            raise where.error(f"'names' must be a non-empty list of non-empty strings; got {given!r}")
        names = tuple(_fold(n) for n in given)
    shape: Shape | None = None
    if "shape" in raw:
        if not isinstance(raw["shape"], str):
            raise where.error(f"'shape' must be a string; got {raw['shape']!r}")
        try:
            shape = parse_shape(raw["shape"])
        except ShapeError as exc:
            raise where.error(str(exc)) from exc
    values_in: str | None = None
    leaves: frozenset[str] = frozenset()
    if "values_in" in raw:
        values_in = raw["values_in"]
        if not isinstance(values_in, str) or values_in not in hierarchies:
            raise where.error(f"'values_in' {values_in!r} is not a hierarchy of this pack"
                              f" (hierarchies: {', '.join(hierarchies) or 'none'})")
        leaves = frozenset(_nfkc(row[0]) for row in hierarchies[values_in])
    plausible: tuple[float, float] | None = None
    if "range" in raw:
        given = raw["range"]
        if (not isinstance(given, list) or len(given) != 2 or not all(_is_number(v) for v in given)
                or given[0] > given[1]):
            raise where.error(f"'range' must be [low, high], two numbers with low <= high; got {given!r}")
        plausible = (float(given[0]), float(given[1]))
    min_share = raw.get("min_share", DEFAULT_MIN_SHARE)
    if not _is_number(min_share) or not 0 < min_share <= 1:
        raise where.error(f"'min_share' must be a number in (0, 1]; got {min_share!r}")
    role = raw.get("role")
    if role not in ROLES:
        raise where.error(f"unknown role {role!r} (roles: {', '.join(ROLES)})")
    generalizer: dict[str, Any] | None = None
    if "generalizer" in raw:
        if role != "quasi_identifier":
            raise where.error(f"a generalizer is for role 'quasi_identifier', not {role!r}")
        generalizer = _generalizer(where, raw["generalizer"], hierarchies)
    return SuggestRule(rule_id, names, shape, values_in, leaves, float(min_share), role, generalizer, why,
                       range=plausible)


def parse_pack(data: Any, source: str, *, builtin: bool = False) -> Pack:
    """Validate a pack's parsed JSON (the module docstring has the format); `source` names it in errors."""
    top = _Where(source)
    if not isinstance(data, dict):
        raise top.error("a pack must be a JSON object with 'pack', 'version' and 'rules'")
    _unknown_keys(top, data, _PACK_KEYS, "the pack")
    for key in ("pack", "version", "rules"):
        if key not in data:
            raise top.error(f"missing {key!r}")
    name = _check_name(top, "'pack'", data["pack"])
    version = data["version"]
    if not _is_int(version) or version != FORMAT_VERSION:
        raise top.error(f"'version' must be {FORMAT_VERSION}; got {version!r}")
    rules_data = data["rules"]
    if not isinstance(rules_data, list):
        raise top.error("'rules' must be a list")
    hierarchies_data = data.get("hierarchies", {})
    if not isinstance(hierarchies_data, dict):
        raise top.error("'hierarchies' must be an object of name to rows")
    hierarchies: dict[str, tuple[tuple[str, ...], ...]] = {}
    for hname, rows in hierarchies_data.items():
        _check_name(top, "a hierarchy name", hname)
        hierarchies[hname] = _hierarchy(_Where(source, f"hierarchies[{hname!r}]"), rows)
    rules: list[Rule] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(rules_data):
        rule = _rule(source, index, raw, hierarchies, builtin)
        if rule.id in seen:
            raise _Where(source, f"rules[{index}] ({rule.id!r})").error(
                f"duplicate rule id: rules[{seen[rule.id]}] has it already")
        seen[rule.id] = index
        rules.append(rule)
    return Pack(name, version, source, builtin, tuple(rules), MappingProxyType(hierarchies))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"the key {key!r} appears twice in one object")
        result[key] = value
    return result


def _load(path: Path, builtin: bool) -> Pack:
    source = str(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise HintPackError(f"hint pack {source}: cannot be read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise HintPackError(f"hint pack {source}: not UTF-8 (byte offset {exc.start})") from exc
    try:
        data = json.loads(text, object_pairs_hook=_object, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise HintPackError(f"hint pack {source}: not JSON: {exc.msg} at {where}") from exc
    except ValueError as exc:
        raise HintPackError(f"hint pack {source}: not JSON: {exc}") from exc
    return parse_pack(data, source, builtin=builtin)


def load_pack(path: Path) -> Pack:
    """Read and validate a user's pack (``--hint-pack FILE``); `HintPackError` when it cannot be used."""
    return _load(Path(path), builtin=False)


def builtin_pack() -> Pack:
    """The built-in pack for Japan (``builtin_hints/japan.json``), held to the stricter rules (``why`` in en and ja)."""
    return _load(BUILTIN_PATH, builtin=True)


def select_packs(builtin: bool, extra: Sequence[Path]) -> tuple[Pack, ...]:
    """The packs of a run in the documented order: the built-in pack first when `builtin`, then `extra` as given.

    A rule id used by two packs is refused with `HintPackError`: "pack X reuses rule id Y of pack Z
    (the built-in pack)", so a user's pack adds rules and never replaces one.
    """
    packs: list[Pack] = [builtin_pack()] if builtin else []
    packs.extend(load_pack(path) for path in extra)
    owner: dict[str, Pack] = {}
    for pack in packs:
        for rule in pack.rules:
            earlier = owner.get(rule.id)
            if earlier is not None:
                raise HintPackError(
                    f"hint pack {pack.describe()} reuses rule id {rule.id!r} of pack {earlier.describe()};"
                    " rule ids must be unique across packs (choose another id)"
                )
            owner[rule.id] = pack
    return tuple(packs)


# ---------------------------------------------------------------------------------------------
# Applying packs to a column


# Every check below depends on a value's text alone, so a column is looked at as its distinct
# values, each with how often it occurs (a million-row column of a hundred ages: a hundred checks).
def _counted(values: Iterable[str | None], normalize: Any = None) -> Counter[str]:
    """The column's non-null values (normalized, when given), each with how often it occurs."""
    counted: Counter[str] = Counter()
    for value, times in Counter(v for v in values if v is not None).items():
        counted[normalize(value) if normalize is not None else value] += times
    return counted


def _share(values: Mapping[str, int], test: Any) -> float | None:
    total = sum(values.values())
    if not total:
        return None
    return sum(times for v, times in values.items() if test(v)) / total


_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")


def _numbers(values: Mapping[str, int]) -> dict[float, int]:
    """The values (NFKC-normalized already) that read as a decimal number, as numbers, with how
    often each occurs."""
    numbers: dict[float, int] = {}
    for v, times in values.items():
        if _NUMBER.fullmatch(v):
            numbers[float(v)] = numbers.get(float(v), 0) + times
    return numbers


def suggest_column(name: str, values: Sequence[str | None], packs: Sequence[Pack]) -> tuple[Suggestion, ...]:
    """Every suggest rule of `packs` that matches the column, in pack order then rule order."""
    folded = _fold(name)
    present = _counted(values, _nfkc)
    numbers: dict[float, int] | None = None
    found: list[Suggestion] = []
    for pack in packs:
        for rule in pack.rules:
            if not isinstance(rule, SuggestRule):
                continue
            name_matched = any(_name_matches(n, name, folded) for n in rule.names)
            shape = rule.shape
            shape_share = _share(present, shape.fullmatch) if shape is not None else None
            values_share = _share(present, rule.leaves.__contains__) if rule.values_in is not None else None
            range_share = None
            if rule.range is not None:
                numbers = _numbers(present) if numbers is None else numbers
                low, high = rule.range
                range_share = (sum(times for n, times in numbers.items() if low <= n <= high) / sum(numbers.values())
                               if numbers else None)
            plausible = range_share is None or range_share >= rule.min_share
            if plausible and (name_matched or (shape_share is not None and shape_share >= rule.min_share)
                              or (values_share is not None and values_share >= rule.min_share)):
                found.append(Suggestion(
                    rule_id=rule.id,
                    role=rule.role,
                    generalizer=copy.deepcopy(rule.generalizer),
                    evidence=Evidence(name_matched, shape_share, values_share, sum(present.values()), range_share),
                    why=dict(rule.why),
                ))
    return tuple(found)


def leak_rules(packs: Sequence[Pack]) -> tuple[str, ...]:
    """The detectors the packs' leak rules turn on, in pack and rule order, each once."""
    detectors: list[str] = []
    for pack in packs:
        for rule in pack.rules:
            if isinstance(rule, LeakRule) and rule.detector not in detectors:
                detectors.append(rule.detector)
    return tuple(detectors)


def scan_column(values: Iterable[str | None], packs: Sequence[Pack]) -> dict[str, int]:
    """For each detector of `leak_rules`, how many values hold at least one finding (`identifiers.scan_values`)."""
    detectors = leak_rules(packs)
    if not detectors:
        return {}
    found = scan_values(values).found
    return {detector: found[detector] for detector in detectors}


def _ascii_alnum(c: str) -> bool:
    return "0" <= c <= "9" or "A" <= c <= "Z" or "a" <= c <= "z"


# Mixed width: the two kinds of characters that have a full- or half-width compatibility form
# (full-width letters and digits against ASCII ones, half-width katakana against full-width),
# as character classes: each value is searched once, not tested a character at a time in Python
# (a million postal codes hold 600,000 distinct values).
_WIDTH_KINDS = tuple((re.compile(compat), re.compile(standard)) for compat, standard in (
    ("[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]", "[0-9A-Za-z]"),
    ("[\uff66-\uff9f]", "[\u30a1-\u30fa]")))


def _mixed_width(values: Mapping[str, int]) -> int:
    """Values on the minority side of a width mix (0 when there is none); see `observe_column`."""
    minority: set[str] = set()
    for compat, standard in _WIDTH_KINDS:
        compat_values = {v for v in values if compat.search(v)}
        standard_values = {v for v in values if standard.search(v)}
        if compat_values and standard_values:
            compat_rows = sum(values[v] for v in compat_values)
            standard_rows = sum(values[v] for v in standard_values)
            minority |= compat_values if compat_rows <= standard_rows else standard_values
    return sum(values[v] for v in minority)


_ERAS = ("令和", "平成", "昭和", "大正", "明治")
_ERA_LETTERS = frozenset("RHSTM")


def _small(text: str, low: int, high: int) -> bool:
    return 1 <= len(text) <= 2 and text.isascii() and text.isdigit() and low <= int(text) <= high


def _kanji_date(rest: str) -> bool:
    year, sep, rest = rest.partition("年")
    if not sep or not (year == "元" or _small(year, 1, 99)):
        return False
    month, sep, rest = rest.partition("月")
    if not sep or not _small(month, 1, 12):
        return False
    if not rest:
        return True
    day, sep, rest = rest.partition("日")
    return bool(sep) and not rest and _small(day, 1, 31)


def _separated_date(rest: str) -> bool:
    for sep in "./-":
        parts = rest.split(sep)
        if len(parts) == 3:
            return _small(parts[0], 1, 99) and _small(parts[1], 1, 12) and _small(parts[2], 1, 31)
    return False


def era_date(value: str) -> bool:
    """Whether `value` is a date in a Japanese era (和暦), after NFKC and with all whitespace removed.

    An era, 令和 平成 昭和 大正 明治 (NFKC turns the one-character ㋿ ㍻ ㍼ ㍽ ㍾ into these) or its
    capital letter R H S T M, then either ``<year>年<month>月`` with an optional ``<day>日``
    (the year may be 元, the first), or ``<year>.<month>.<day>`` with ``.``, ``/`` or ``-`` as the
    separator. Numbers have 1 or 2 ASCII digits (full-width ones become ASCII under NFKC): year
    1-99, month 1-12, day 1-31. So 令和5年4月1日, 平成元年1月8日, H12.3.4 and R5/4/1 count; 2023-04-01,
    令和5年 and H12.13.4 do not.
    """
    text = "".join(_nfkc(value).split())
    if text[:2] in _ERAS:
        rest = text[2:]
    elif text[:1] in _ERA_LETTERS:
        rest = text[1:]
    else:
        return False
    return _kanji_date(rest) or _separated_date(rest)


def observe_column(name: str, values: Sequence[str | None], packs: Sequence[Pack], declared_role: str | None,
                   suggested_roles: Sequence[str]) -> tuple[Observation, ...]:
    """What the packs' observe rules find in one column, in pack and rule order (one observation per check).

    `count` of `of`, where `of` is the column's non-null values, and an observation only when
    `count` is positive:

    mixed_width
        The same kind of character written in two widths, which count as different values until
        NFKC-normalized (normalize before counting). Two kinds: Latin letters and digits (a value
        with a full-width one, U+FF10-U+FF19, U+FF21-U+FF3A, U+FF41-U+FF5A, against a value with
        an ASCII one) and katakana (a value with a half-width one, U+FF66-U+FF9F, against a value
        with a standard one, U+30A1-U+30FA). A kind is mixed when both sides have at least one
        value; `count` is the values on the smaller side of each mixed kind (the compatibility
        side on a tie), counted once. Full-width punctuation (（）、－) is usual in Japanese text
        and not counted.
    era_date
        The values that are dates in a Japanese era (`era_date`).
    qi_declared_otherwise
        A rule suggested quasi_identifier (in `suggested_roles`) but `declared_role` is keep or
        sensitive: 1 of 1.

    `name` is the column's name (the checks above do not depend on it).
    """
    del name
    present = _counted(values)
    of = sum(present.values())
    found: list[Observation] = []
    done: set[str] = set()
    for pack in packs:
        for rule in pack.rules:
            if not isinstance(rule, ObserveRule) or rule.check in done:
                continue
            done.add(rule.check)
            if rule.check == "mixed_width":
                count, out_of = _mixed_width(present), of
            elif rule.check == "era_date":
                count, out_of = sum(times for v, times in present.items() if era_date(v)), of
            else:
                otherwise = declared_role in ("keep", "sensitive") and "quasi_identifier" in suggested_roles
                count, out_of = int(otherwise), 1
            if count:
                found.append(Observation(rule.id, rule.check, count, out_of, dict(rule.why)))
    return tuple(found)
