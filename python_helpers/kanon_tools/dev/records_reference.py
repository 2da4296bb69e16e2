"""A brute-force Python reference for `kanon.release_records`, for the tests.

`kanon.release_records` publishes a table of people (one row per record) after optimal full-domain
generalization: it searches the lattice of generalization levels for the node of least loss that
makes the table k-anonymous (and l-diverse) within a suppression budget. This module answers the
same question the slow, obvious way: it evaluates every node of the lattice. It is written from the
definitions below, not from any SQL, so the two can be checked against each other.

The record model
================

Input
    ``data``: rows (a list of mappings, or a pandas DataFrame); ``quasi_identifiers``: columns, each
    with a generalizer (below) and a missing policy; ``sensitive``: columns; ``k``; optional ``l``
    with ``diversity`` 'distinct' or 'entropy'; optional ``privacy_unit`` column; ``budget_share``
    (0..1) and ``budget_unit`` ('records' or 'people'); ``loss`` (the metric to minimise).

Values as text
    A value's level-0 label is its text: integers (and integral floats) without '.0', other floats
    as Python's shortest repr ('0.5'), booleans 'true'/'false', dates 'YYYY-MM-DD', timestamps
    'YYYY-MM-DD HH:MM:SS', strings as they are. NULL (None, NaN, NaT, pd.NA) is missing.

Generalizers (a value's label at each level 0..depth)
    * ``Hierarchy``: a table of columns ``level_0 .. level_n``, one row per leaf (kanon's seed
      format): ``level_0`` is the leaf as text, ``level_n`` the single root. A value that is not a
      leaf gets the root at every level (level 0 included). Depth n.
    * ``NumericBins``: a list of edge lists, finest first, each a subset of the one before. Level 0
      is the value as text; level i (1..m) bins the value by the i-th edge list ``e0 < ... < en``:
      ``v < e0`` -> ``'<e0'``, ``e_i <= v < e_(i+1)`` -> ``'e_i-(e_(i+1)-1)'`` when every edge of
      that list is an integer, else ``'[e_i, e_(i+1))'``, ``v >= en`` -> ``'en+'``; level m+1 is
      ``'*'``. Depth m+1.
    * ``DateTruncation``: levels from ('month', 'quarter', 'year'), in that order, any increasing
      subset. Level 0 is the ISO date 'YYYY-MM-DD'; then 'YYYY-MM', 'YYYY-Qn', 'YYYY' as chosen;
      the top level is ``'*'``. Depth = number of chosen levels + 1.
    * none: levels ``[value, '*']``. Depth 1.

Missing values (per quasi-identifier, default for all: ``missing``)
    * ``'star'``: a NULL value gets the root label at EVERY level (level 0 included).
    * ``'suppress'``: a record with a NULL in that quasi-identifier is always suppressed (reason
      ``missing``), whatever the node; it is in no class.
    For the label counts of the non-uniform entropy (below), a NULL value counts under the root
    label at every level under either policy.

Nodes and classes
    A node is one level per quasi-identifier, in declaration order; the lattice is every such
    vector. At a node, the records that are not missing-suppressed are grouped by their labels
    (the label text per quasi-identifier). A class's size is its number of records or, with a
    privacy unit, its number of distinct privacy units. A record whose privacy unit is NULL could
    be anybody's: it is suppressed up front, like a missing quasi-identifier under 'suppress'
    (reason ``missing``), and counts in the budget as a record (it adds no person).

Kept classes
    A class is kept iff its size is at least ``k`` and, when ``l`` is given, for EVERY sensitive
    column:

    * 'distinct': the class holds at least ``l`` distinct non-NULL values of the column;
    * 'entropy': ``H >= ln(l) - 1e-9`` with ``H = -sum p ln p`` over the column's non-NULL values,
      ``p`` = records of the class with that value / records of the class whose value is not NULL.

    **NULL is not a value** of a sensitive column, for both kinds: it adds no distinct value and
    takes no share of the entropy. A class whose column is NULL on every record is never diverse
    (whatever ``l``). Records of other classes are suppressed: reason ``too_small`` when the class
    size is below ``k``, else ``not_diverse``.

Suppression budget
    The suppressed amount counts every suppressed record, missing-suppressed ones included: in
    'records', their number; in 'people', the distinct non-NULL privacy units with at least one
    suppressed record ('people' without a privacy unit = 'records'). The limit is
    ``floor(share * total)``, total = all input records, or all distinct non-NULL privacy units for
    'people'; ``share`` is read as the decimal it prints as (0.29 * 100 is 29, not 28). A node
    passes iff the suppressed amount is at most the limit.

Loss metrics (every node gets all three)
    * ``height``: the sum of the levels.
    * ``discernibility``: sum over kept classes of (records in the class)^2, plus suppressed records
      (every reason) x total input records.
    * ``non_uniform_entropy``: the sum over records and quasi-identifiers of
      ``log2(count(label at the node's level) / count(level-0 label))``, the counts taken over ALL
      input records (missing-suppressed included) sharing that label at that level; a suppressed
      record is charged at the top level, ``log2(total records / count(level-0 label))``.

Optimum
    The passing node of least loss; ties go to the least height, then to the lexicographically
    smallest level vector. The non-uniform entropy is rounded to 6 decimals before comparing.

API: `evaluate_node`, `brute_force` and `rescue_hints` (module functions, each building a
`RecordsReference`, which can also be used directly to evaluate many nodes of one problem), and
`RecordsReference.fates` / `RecordsReference.released` for what happens to each record at a node.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from fractions import Fraction
from itertools import pairwise, product
from typing import Any, Literal, Required, TypeAlias, TypedDict, Unpack

import numpy as np
import numpy.typing as npt
import pandas as pd

ROOT = "*"
"""The root label of generalizers that do not name their own (bins, dates, none)."""
ENTROPY_TOLERANCE = 1e-9
NUE_DECIMALS = 6

MissingPolicy = Literal["star", "suppress"]
Diversity = Literal["distinct", "entropy"]
BudgetUnit = Literal["records", "people"]
LossMetric = Literal["height", "discernibility", "non_uniform_entropy"]
Reason = Literal["missing", "too_small", "not_diverse"]
Fate = Literal["kept", "missing", "too_small", "not_diverse"]
REASONS: tuple[Reason, ...] = ("missing", "too_small", "not_diverse")
DATE_LEVELS = ("month", "quarter", "year")
Levels = tuple[int, ...]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]
Number = int | float | Decimal | Fraction


# --- values as text ---------------------------------------------------------------------------


def is_null(value: object) -> bool:
    """None, NaN, NaT and pd.NA are NULL."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    return isinstance(value, np.datetime64) and bool(np.isnat(value))


def number_text(value: Number) -> str:
    """A number as text: integral values without '.0', other floats as their shortest repr."""
    if isinstance(value, int | np.integer) and not isinstance(value, bool):
        return str(int(value))
    if isinstance(value, Fraction | Decimal):
        if value == int(value):
            return str(int(value))
        return repr(float(value)) if isinstance(value, Fraction) else format(value.normalize(), "f")
    as_float = float(value)
    if math.isfinite(as_float) and as_float == int(as_float):
        return str(int(as_float))
    return repr(as_float)


def value_text(value: object) -> str | None:
    """A value's level-0 text, or None when it is NULL (see the module docstring)."""
    if is_null(value):
        return None
    if isinstance(value, bool | np.bool_):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal | Fraction | np.integer | np.floating):
        return number_text(value)  # type: ignore[arg-type]
    if isinstance(value, datetime):  # pd.Timestamp too; before date: a datetime is a date
        return value.isoformat(sep=" ")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, np.datetime64):
        return value_text(pd.Timestamp(value))
    return str(value)


def _as_number(value: object) -> float | int:
    if isinstance(value, bool | np.bool_):
        raise ValueError(f"a boolean is not a number for numeric bins: {value!r}")
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating | Decimal | Fraction):
        return float(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return float(value)
    raise ValueError(f"not a number for numeric bins: {value!r}")


def _as_date(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, np.datetime64):
        return pd.Timestamp(value).date()
    if isinstance(value, str):
        return datetime.fromisoformat(value).date() if len(value) > 10 else date.fromisoformat(value)
    raise ValueError(f"not a date for date truncation: {value!r}")


# --- generalizers -----------------------------------------------------------------------------


class Hierarchy:
    """A hierarchy table: rows ``(level_0, ..., level_n)``, one per leaf, a single root.

    The one hierarchy of the tests' references: this module's, and the count release's oracle
    (tests/oracles/counts.py) reads its labels with `labels_of`. It refuses what kanon's hierarchy
    checks refuse (macros/hierarchy/): no row, rows of different lengths, fewer than two levels, a
    NULL or blank label, more than one root, a label with two parents, a leaf listed twice."""

    __slots__ = ("_by_leaf", "depth", "root", "rows")

    def __init__(self, rows: Iterable[Sequence[str]]) -> None:
        self.rows: tuple[tuple[str, ...], ...] = tuple(tuple(row) for row in rows)
        if not self.rows:
            raise ValueError("a hierarchy needs at least one row")
        widths = {len(row) for row in self.rows}
        if len(widths) != 1:
            raise ValueError(f"hierarchy rows have different numbers of levels: {sorted(widths)}")
        width = widths.pop()
        if width < 2:
            raise ValueError("a hierarchy needs at least two levels (the leaf and a single root)")
        for row in self.rows:
            if any(not isinstance(label, str) or not label.strip() for label in row):
                raise ValueError(f"hierarchy row {row!r} has a NULL or blank label")
        roots = {row[-1] for row in self.rows}
        if len(roots) != 1:
            raise ValueError(f"a hierarchy needs exactly one root, got {sorted(roots)}")
        parents: dict[tuple[int, str], str] = {}
        for row in self.rows:
            for level in range(width - 1):
                parent = parents.setdefault((level, row[level]), row[level + 1])
                if parent != row[level + 1]:
                    raise ValueError(
                        f"label {row[level]!r} at level {level} has two parents: {parent!r}, {row[level + 1]!r}"
                    )
        self._by_leaf: dict[str, tuple[str, ...]] = {}
        for row in self.rows:
            if row[0] in self._by_leaf:
                raise ValueError(f"leaf {row[0]!r} is listed more than once")
            self._by_leaf[row[0]] = row
        self.depth: int = width - 1
        self.root: str = roots.pop()

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Hierarchy:
        """From a table with columns level_0 .. level_n (other columns are ignored)."""
        names = [f"level_{i}" for i in range(len(frame.columns)) if f"level_{i}" in frame.columns]
        if not names or names != [f"level_{i}" for i in range(len(names))]:
            raise ValueError(f"a hierarchy table needs columns level_0 .. level_n, got {list(frame.columns)}")
        return cls([tuple(str(v) for v in row) for row in frame[names].itertuples(index=False)])

    @classmethod
    def from_mapping(cls, labels: Mapping[str, Sequence[str]]) -> Hierarchy:
        """From ``{leaf: (level_1, ..., root)}``."""
        return cls([(leaf, *above) for leaf, above in labels.items()])

    def labels_of(self, leaf: str | None) -> tuple[str, ...] | None:
        """The labels of a leaf at every level, or None when `leaf` is NULL or not a leaf."""
        if leaf is None:
            return None
        return self._by_leaf.get(leaf)

    def labels(self, value: object) -> tuple[str, ...]:
        """The labels of a non-NULL value at levels 0..depth (root everywhere when not a leaf)."""
        row = self.labels_of(value_text(value))
        return row if row is not None else (self.root,) * (self.depth + 1)

    def __repr__(self) -> str:
        return f"Hierarchy(depth={self.depth}, leaves={len(self.rows)})"


class NumericBins:
    """Numeric bins: edge lists, finest first, each a subset of the previous one."""

    __slots__ = ("depth", "edges", "root")

    def __init__(self, edges: Sequence[Sequence[Number]]) -> None:
        self.edges: tuple[tuple[float | int, ...], ...] = tuple(
            tuple(_as_number(e) for e in level) for level in edges
        )
        if not self.edges:
            raise ValueError("numeric bins need at least one edge list")
        for i, level in enumerate(self.edges):
            if not level:
                raise ValueError(f"edge list {i} is empty")
            if any(not math.isfinite(e) for e in level):
                raise ValueError(f"edge list {i} has a non-finite edge")
            if any(a >= b for a, b in pairwise(level)):
                raise ValueError(f"edge list {i} is not strictly increasing: {level}")
            if i and not set(level) <= set(self.edges[i - 1]):
                raise ValueError(f"edge list {i} is not a subset of edge list {i - 1}")
        self.depth: int = len(self.edges) + 1
        self.root: str = ROOT

    @staticmethod
    def bin_label(value: float | int, edges: Sequence[float | int]) -> str:
        """The label of `value` for one edge list."""
        if value < edges[0]:
            return f"<{number_text(edges[0])}"
        if value >= edges[-1]:
            return f"{number_text(edges[-1])}+"
        i = int(np.searchsorted(np.asarray(edges, dtype=float), value, side="right")) - 1
        low, high = edges[i], edges[i + 1]
        if all(float(e).is_integer() for e in edges):
            return f"{number_text(low)}-{number_text(int(high) - 1)}"
        return f"[{number_text(low)}, {number_text(high)})"

    def labels(self, value: object) -> tuple[str, ...]:
        number = _as_number(value)
        if isinstance(number, float) and not math.isfinite(number):
            raise ValueError(f"numeric bins need finite values, got {value!r}")
        return (number_text(number), *(self.bin_label(number, e) for e in self.edges), self.root)

    def __repr__(self) -> str:
        return f"NumericBins({[list(e) for e in self.edges]})"


class DateTruncation:
    """Dates truncated to some of month, quarter, year (in that order)."""

    __slots__ = ("depth", "levels", "root")

    def __init__(self, levels: Sequence[str] = DATE_LEVELS) -> None:
        self.levels: tuple[str, ...] = tuple(levels)
        if not self.levels or any(name not in DATE_LEVELS for name in self.levels):
            raise ValueError(f"date levels must be a non-empty subset of {DATE_LEVELS}, got {self.levels}")
        order = [DATE_LEVELS.index(name) for name in self.levels]
        if order != sorted(set(order)):
            raise ValueError(f"date levels must be increasing and distinct, got {self.levels}")
        self.depth: int = len(self.levels) + 1
        self.root: str = ROOT

    def labels(self, value: object) -> tuple[str, ...]:
        day = _as_date(value)
        out = [day.isoformat()]
        for name in self.levels:
            if name == "month":
                out.append(f"{day.year:04d}-{day.month:02d}")
            elif name == "quarter":
                out.append(f"{day.year:04d}-Q{(day.month - 1) // 3 + 1}")
            else:
                out.append(f"{day.year:04d}")
        out.append(self.root)
        return tuple(out)

    def __repr__(self) -> str:
        return f"DateTruncation({list(self.levels)})"


class NoGeneralizer:
    """No generalizer: the value, then '*'."""

    __slots__ = ()
    depth = 1
    root = ROOT

    def labels(self, value: object) -> tuple[str, ...]:
        text = value_text(value)
        assert text is not None
        return (text, ROOT)

    def __repr__(self) -> str:
        return "NoGeneralizer()"


Generalizer: TypeAlias = Hierarchy | NumericBins | DateTruncation | NoGeneralizer


@dataclass(frozen=True)
class QuasiIdentifier:
    """A quasi-identifier column, its generalizer (None: value then '*') and missing policy
    (None: the problem's default)."""

    column: str
    generalizer: Generalizer | None = None
    missing: MissingPolicy | None = None


QuasiIdentifiers = Sequence[QuasiIdentifier | str] | Mapping[str, Generalizer | None]


def _as_quasi_identifiers(quasi_identifiers: QuasiIdentifiers) -> list[QuasiIdentifier]:
    if isinstance(quasi_identifiers, Mapping):
        return [QuasiIdentifier(column, generalizer) for column, generalizer in quasi_identifiers.items()]
    return [qi if isinstance(qi, QuasiIdentifier) else QuasiIdentifier(qi) for qi in quasi_identifiers]


# --- results ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class NodeResult:
    """One node of the lattice, evaluated."""

    levels: Levels
    passes: bool
    """The suppressed amount is within the budget."""
    suppressed_records: Mapping[Reason, int]
    """Suppressed records by reason ('missing', 'too_small', 'not_diverse')."""
    suppressed_people: Mapping[Reason, int]
    """Distinct non-NULL privacy units with a record suppressed for that reason (records without
    a privacy unit). A person can have records suppressed for two reasons."""
    suppressed_records_total: int
    suppressed_people_total: int
    suppressed: int
    """The suppressed amount in the budget's unit."""
    budget_limit: int
    classes: int
    kept_classes: int
    kept_records: int
    height: int
    discernibility: int
    non_uniform_entropy: float
    loss_metric: LossMetric

    @property
    def loss(self) -> float:
        """The chosen metric, as compared (non-uniform entropy rounded to 6 decimals)."""
        if self.loss_metric == "height":
            return self.height
        if self.loss_metric == "discernibility":
            return self.discernibility
        return round(self.non_uniform_entropy, NUE_DECIMALS)

    def sort_key(self) -> tuple[float, int, Levels]:
        """Least loss, then least height, then the smallest level vector."""
        return (self.loss, self.height, self.levels)


@dataclass(frozen=True)
class RescueHint:
    """How many suppressed records one more level on one quasi-identifier would release."""

    column: str
    from_level: int
    to_level: int
    suppressed_records: int
    suppressed_records_after: int

    @property
    def rescued(self) -> int:
        """Suppressed records now less suppressed records after the step (may be < 0 for entropy)."""
        return self.suppressed_records - self.suppressed_records_after


# --- the reference ----------------------------------------------------------------------------


def _codes(labels: Sequence[str]) -> tuple[IntArray, int]:
    codes, uniques = pd.factorize(np.asarray(labels, dtype=object))
    return codes.astype(np.int64), len(uniques)


def _factorize_column(column: pd.Series[Any]) -> tuple[IntArray, list[object]]:
    """Codes per record (-1 for NULL) and the distinct non-NULL values."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    values = list(uniques)
    # pd.factorize treats None/NaN as NULL; pd.NA / NaT inside object columns too, but be sure
    nulls = [i for i, v in enumerate(values) if is_null(v)]
    codes = codes.astype(np.int64)
    if nulls:
        codes[np.isin(codes, nulls)] = -1
    return codes, values


def _decimal_share(share: float) -> Fraction:
    return Fraction(Decimal(str(share)))


class RecordsReference:
    """One records-release problem, prepared once; `evaluate` any node of its lattice."""

    def __init__(
        self,
        data: pd.DataFrame | Sequence[Mapping[str, Any]],
        quasi_identifiers: QuasiIdentifiers,
        *,
        k: int,
        sensitive: Sequence[str] = (),
        l: float | None = None,  # noqa: E741 - the l of l-diversity
        diversity: Diversity = "distinct",
        privacy_unit: str | None = None,
        budget_share: float = 0.0,
        budget_unit: BudgetUnit = "records",
        loss: LossMetric = "height",
        missing: MissingPolicy = "star",
    ) -> None:
        frame = data if isinstance(data, pd.DataFrame) else pd.DataFrame(list(data))
        frame = frame.reset_index(drop=True)
        self.frame = frame
        self.qis = _as_quasi_identifiers(quasi_identifiers)
        self.sensitive = tuple(sensitive)
        self._validate(k, l, diversity, privacy_unit, budget_share, budget_unit, loss, missing)
        self.k = k
        self.l = l
        self.diversity: Diversity = diversity
        self.privacy_unit = privacy_unit
        self.budget_share = budget_share
        self.budget_unit: BudgetUnit = budget_unit
        self.loss: LossMetric = loss
        self.n = len(frame)

        self.generalizers: list[Generalizer] = [qi.generalizer or NoGeneralizer() for qi in self.qis]
        self.depths: tuple[int, ...] = tuple(g.depth for g in self.generalizers)
        # per QI, per level: label code of every record, number of codes, label text of each code
        self._label_codes: list[list[IntArray]] = []
        self._label_cards: list[list[int]] = []
        self._label_texts: list[list[list[str]]] = []
        # per QI, per level: log2(count of the record's label / count of its level-0 label)
        self._nue: list[list[FloatArray]] = []
        missing_mask = np.zeros(self.n, dtype=bool)
        for qi, generalizer in zip(self.qis, self.generalizers, strict=True):
            codes, values = _factorize_column(frame[qi.column])
            null = codes < 0
            if (qi.missing or missing) == "suppress":
                missing_mask |= null
            per_value = [generalizer.labels(v) for v in values]
            level_codes: list[IntArray] = []
            cards: list[int] = []
            texts: list[list[str]] = []
            for level in range(generalizer.depth + 1):
                # NULL: the root at every level (for 'suppress' this only feeds the entropy counts)
                value_labels = [labels[level] for labels in per_value] + [generalizer.root]
                label_of_code, card = _codes(value_labels)
                record_codes = label_of_code[np.where(null, len(values), codes)]
                level_codes.append(record_codes)
                cards.append(card)
                text_of_code = [""] * card
                for label, code in zip(value_labels, label_of_code, strict=True):
                    text_of_code[code] = label
                texts.append(text_of_code)
            counts0 = np.bincount(level_codes[0], minlength=cards[0])[level_codes[0]]
            nue = [
                np.log2(np.bincount(c, minlength=card)[c] / counts0)
                for c, card in zip(level_codes, cards, strict=True)
            ]
            self._label_codes.append(level_codes)
            self._label_cards.append(cards)
            self._label_texts.append(texts)
            self._nue.append(nue)
        if privacy_unit is not None:
            self._unit, units = _factorize_column(frame[privacy_unit])
            # a record nobody is known to be behind could be anybody: suppressed up front
            missing_mask |= self._unit < 0
            self._n_units = len(units)
            self.total_people = int(np.unique(self._unit[self._unit >= 0]).size)
        else:
            self._unit = np.arange(self.n, dtype=np.int64)
            self._n_units = self.n
            self.total_people = self.n
        self.missing = missing_mask
        self._active = np.flatnonzero(~missing_mask)
        self._sensitive_codes = [_factorize_column(frame[s]) for s in self.sensitive]

        total = self.total_people if budget_unit == "people" else self.n
        self.budget_limit = math.floor(_decimal_share(budget_share) * total)

    def _validate(
        self,
        k: int,
        l: float | None,  # noqa: E741
        diversity: str,
        privacy_unit: str | None,
        budget_share: float,
        budget_unit: str,
        loss: str,
        missing: str,
    ) -> None:
        if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
            raise ValueError(f"k must be a whole number of at least 1, got {k!r}")
        if not self.qis:
            raise ValueError("at least one quasi-identifier is required")
        names = [qi.column for qi in self.qis]
        if len(set(names)) != len(names):
            raise ValueError(f"a quasi-identifier is listed twice: {names}")
        if set(names) & set(self.sensitive):
            raise ValueError("a column cannot be both a quasi-identifier and sensitive")
        for column in [*names, *self.sensitive, *([privacy_unit] if privacy_unit else [])]:
            if column not in self.frame.columns:
                raise ValueError(f"no column {column!r} in the data")
        if l is not None:
            if isinstance(l, bool) or not isinstance(l, int | float | np.integer | np.floating) or l < 1:
                raise ValueError(f"l must be a number of at least 1, got {l!r}")
            if diversity == "distinct" and not float(l).is_integer():
                raise ValueError(f"distinct l-diversity needs a whole l, got {l!r}")
            if not self.sensitive:
                raise ValueError("l-diversity needs at least one sensitive column")
        if diversity not in ("distinct", "entropy"):
            raise ValueError(f"diversity must be 'distinct' or 'entropy', got {diversity!r}")
        if not 0 <= budget_share <= 1:
            raise ValueError(f"budget_share must be between 0 and 1, got {budget_share!r}")
        if budget_unit not in ("records", "people"):
            raise ValueError(f"budget_unit must be 'records' or 'people', got {budget_unit!r}")
        if loss not in ("height", "discernibility", "non_uniform_entropy"):
            raise ValueError(f"unknown loss metric {loss!r}")
        for qi in self.qis:
            if (qi.missing or missing) not in ("star", "suppress"):
                raise ValueError(f"missing policy must be 'star' or 'suppress', got {qi.missing or missing!r}")

    # -- the lattice --

    def lattice(self) -> list[Levels]:
        """Every node, in lexicographic order."""
        return [tuple(node) for node in product(*(range(d + 1) for d in self.depths))]

    @property
    def lattice_size(self) -> int:
        return math.prod(d + 1 for d in self.depths)

    def _check_levels(self, levels: Sequence[int]) -> Levels:
        node = tuple(int(x) for x in levels)
        if len(node) != len(self.qis) or any(not 0 <= x <= d for x, d in zip(node, self.depths, strict=True)):
            raise ValueError(f"levels {tuple(levels)} are not a node of a lattice with depths {self.depths}")
        return node

    # -- one node --

    def _classes(self, node: Levels) -> tuple[IntArray, int]:
        """Class id of every active record, and the number of classes."""
        active = self._active
        key = np.zeros(len(active), dtype=np.int64)
        for q, level in enumerate(node):
            card = self._label_cards[q][level]
            if int(key.max(initial=0)) >= (2**62) // max(card, 1):
                key = pd.factorize(key)[0].astype(np.int64)
            key = key * card + self._label_codes[q][level][active]
        class_ids, uniques = pd.factorize(key)
        return class_ids.astype(np.int64), len(uniques)

    def _kept_classes(self, class_ids: IntArray, n_classes: int) -> tuple[BoolArray, BoolArray, IntArray]:
        """Per class: kept, large enough (size >= k); and record counts."""
        active = self._active
        records = np.bincount(class_ids, minlength=n_classes)
        if self.privacy_unit is None:
            size = records
        else:
            units = self._unit[active]
            has_unit = units >= 0
            pairs = np.unique(class_ids[has_unit] * self._n_units + units[has_unit])
            size = np.bincount(pairs // self._n_units, minlength=n_classes)
        large = size >= self.k
        diverse = np.ones(n_classes, dtype=bool)
        if self.l is not None:
            for codes, values in self._sensitive_codes:
                diverse &= self._diverse(class_ids, n_classes, codes[active], len(values))
        return large & diverse, large, records

    def _diverse(self, class_ids: IntArray, n_classes: int, codes: IntArray, n_values: int) -> BoolArray:
        assert self.l is not None
        valid = codes >= 0
        pairs, counts = np.unique(class_ids[valid] * max(n_values, 1) + codes[valid], return_counts=True)
        pair_class = pairs // max(n_values, 1)
        if self.diversity == "distinct":
            return np.bincount(pair_class, minlength=n_classes) >= self.l
        weights = counts.astype(np.float64)
        totals = np.bincount(pair_class, weights=weights, minlength=n_classes)
        sum_c_ln_c = np.bincount(pair_class, weights=weights * np.log(weights), minlength=n_classes)
        with np.errstate(divide="ignore", invalid="ignore"):
            entropy = np.where(totals > 0, np.log(totals) - sum_c_ln_c / totals, -np.inf)
        return (totals > 0) & (entropy >= math.log(self.l) - ENTROPY_TOLERANCE)

    def _fate_codes(self, node: Levels) -> tuple[npt.NDArray[np.int8], int, int, IntArray]:
        """Per record 0 kept, 1 missing, 2 too_small, 3 not_diverse; classes; kept classes;
        record counts of the kept classes."""
        class_ids, n_classes = self._classes(node)
        kept, large, records = self._kept_classes(class_ids, n_classes)
        fate = np.ones(self.n, dtype=np.int8)
        fate[self._active] = np.where(kept, 0, np.where(large, 3, 2))[class_ids]
        return fate, n_classes, int(kept.sum()), records[kept]

    def evaluate(self, levels: Sequence[int]) -> NodeResult:
        node = self._check_levels(levels)
        fate, n_classes, n_kept_classes, kept_sizes = self._fate_codes(node)
        suppressed = fate != 0
        by_reason_records: dict[Reason, int] = {}
        by_reason_people: dict[Reason, int] = {}
        for code, reason in enumerate(REASONS, start=1):
            mask = fate == code
            by_reason_records[reason] = int(mask.sum())
            by_reason_people[reason] = self._people(mask)
        records_total = int(suppressed.sum())
        people_total = self._people(suppressed)
        amount = people_total if self.budget_unit == "people" else records_total
        nue = 0.0
        for q, level in enumerate(node):
            nue += float(self._nue[q][level][~suppressed].sum()) + float(self._nue[q][-1][suppressed].sum())
        return NodeResult(
            levels=node,
            passes=amount <= self.budget_limit,
            suppressed_records=by_reason_records,
            suppressed_people=by_reason_people,
            suppressed_records_total=records_total,
            suppressed_people_total=people_total,
            suppressed=amount,
            budget_limit=self.budget_limit,
            classes=n_classes,
            kept_classes=n_kept_classes,
            kept_records=self.n - records_total,
            height=sum(node),
            discernibility=int((kept_sizes.astype(np.int64) ** 2).sum()) + records_total * self.n,
            non_uniform_entropy=nue,
            loss_metric=self.loss,
        )

    def _people(self, mask: BoolArray) -> int:
        units = self._unit[mask]
        return int(np.unique(units[units >= 0]).size)

    def fates(self, levels: Sequence[int]) -> list[Fate]:
        """What happens to each input record at the node, in input order."""
        fate, _, _, _ = self._fate_codes(self._check_levels(levels))
        names: tuple[Fate, ...] = ("kept", *REASONS)
        return [names[code] for code in fate.tolist()]

    def labels(self, levels: Sequence[int]) -> pd.DataFrame:
        """Every record's quasi-identifier labels at the node (missing-suppressed ones included)."""
        node = self._check_levels(levels)
        out: dict[str, list[str]] = {}
        for q, (qi, level) in enumerate(zip(self.qis, node, strict=True)):
            texts = self._label_texts[q][level]
            out[qi.column] = [texts[c] for c in self._label_codes[q][level].tolist()]
        return pd.DataFrame(out, index=self.frame.index)

    def released(self, levels: Sequence[int]) -> pd.DataFrame:
        """The kept records at the node: generalized quasi-identifiers, then every other input
        column unchanged; the index is the input position."""
        node = self._check_levels(levels)
        fate, _, _, _ = self._fate_codes(node)
        kept = fate == 0
        labels = self.labels(node)
        rest = self.frame.drop(columns=[qi.column for qi in self.qis])
        return pd.concat([labels, rest], axis=1)[kept]

    # -- the search --

    def brute_force(self) -> tuple[NodeResult | None, list[NodeResult]]:
        """Every node evaluated (lexicographic order) and the optimum (None when none passes)."""
        results = [self.evaluate(node) for node in self.lattice()]
        passing = [r for r in results if r.passes]
        best = min(passing, key=NodeResult.sort_key) if passing else None
        return best, results

    def rescue_hints(self, levels: Sequence[int]) -> list[RescueHint]:
        """For each quasi-identifier below its top level: suppressed records at the node, and at
        the node with that quasi-identifier one level higher."""
        node = self._check_levels(levels)
        here = self.evaluate(node).suppressed_records_total
        hints = []
        for q, qi in enumerate(self.qis):
            if node[q] >= self.depths[q]:
                continue
            up = (*node[:q], node[q] + 1, *node[q + 1 :])
            hints.append(RescueHint(qi.column, node[q], node[q] + 1, here, self.evaluate(up).suppressed_records_total))
        return hints


# --- module functions -------------------------------------------------------------------------


class Problem(TypedDict, total=False):
    """The keywords of a `RecordsReference` besides the data and quasi-identifiers."""

    k: Required[int]
    sensitive: Sequence[str]
    l: float | None  # noqa: E741 - the l of l-diversity
    diversity: Diversity
    privacy_unit: str | None
    budget_share: float
    budget_unit: BudgetUnit
    loss: LossMetric
    missing: MissingPolicy


def evaluate_node(data: pd.DataFrame | Sequence[Mapping[str, Any]], quasi_identifiers: QuasiIdentifiers,
                  levels: Sequence[int], **problem: Unpack[Problem]) -> NodeResult:
    """One node of the lattice evaluated."""
    return RecordsReference(data, quasi_identifiers, **problem).evaluate(levels)


def brute_force(data: pd.DataFrame | Sequence[Mapping[str, Any]], quasi_identifiers: QuasiIdentifiers,
                **problem: Unpack[Problem]) -> tuple[NodeResult | None, list[NodeResult]]:
    """The optimal passing node (None when no node passes) and every node's result, in
    lexicographic order of the level vectors."""
    return RecordsReference(data, quasi_identifiers, **problem).brute_force()


def rescue_hints(data: pd.DataFrame | Sequence[Mapping[str, Any]], quasi_identifiers: QuasiIdentifiers,
                 levels: Sequence[int], **problem: Unpack[Problem]) -> list[RescueHint]:
    """Per quasi-identifier not at its top: suppressed records at the node and one level higher."""
    return RecordsReference(data, quasi_identifiers, **problem).rescue_hints(levels)
