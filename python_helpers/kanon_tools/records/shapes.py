"""The value-shape language of hint packs: what a column's values look like, matched in linear time.

A hint pack rule may say "a column whose values look like a Japanese postal code is a location
quasi-identifier". The "look like" part is a *shape*: a short text in the small language below.
The language is deliberately weaker than regular expressions. It has bounded repetition only, no
alternation and no groups, so no shape can express catastrophic backtracking, and the matcher
never backtracks anyway (see "Matching").

Grammar
=======

::

    shape      := item (spaces item)*           at most 32 items, at most 400 characters in all
    item       := atom quantifier?               the quantifier follows the atom, no space between
    atom       := class | literal
    class      := a name from the table below    e.g. digit, kana
    literal    := "'" character+ "'"             "''" inside a literal is one quote
    quantifier := "?"                            0 or 1
                | "{" n "}"                      exactly n
                | "{" n "," m "}"                n to m, 0 <= n <= m <= 64 (decimal)

Items are separated by whitespace; whitespace inside a literal is part of the literal. A literal
may hold several characters: it matches them in sequence, and a quantifier repeats the whole
literal (``'ab'{2}`` is ``abab``, ``'ab'?`` is nothing or ``ab``, never ``a`` alone).

Classes (each a test on one character):

============  ==================================================================================
digit         ASCII 0-9
wide_digit    full-width ０-９ (U+FF10-U+FF19)
any_digit     either of the above
upper         ASCII A-Z
lower         ASCII a-z
letter        ``str.isalpha()``: any Unicode letter, kana and kanji included
alnum         ASCII letters and digits
kana          hiragana U+3041-U+309F, katakana U+30A0-U+30FF (the long mark ー and the middle
              dot ・ are in that block), half-width katakana U+FF66-U+FF9F
kanji         CJK unified ideographs U+4E00-U+9FFF, extension A U+3400-U+4DBF, and 々 (U+3005)
space         ``str.isspace()`` (the ideographic space U+3000 included)
punct         Unicode general category P* (、。「」（）-, but not symbols such as + or ¥)
any           any one character
============  ==================================================================================

Examples::

    digit{3} '-'? digit{4}                     a Japanese postal code: 100-0001, 1000001
    '〒'? any_digit{3} '-' any_digit{4}         〒100-0001, １００-０００１
    digit{1,3}                                 an age: 7, 42, 101
    kanji{2} any_digit{1,2} '年' any_digit{1,2} '月' any_digit{1,2} '日'
                                               a Japanese era date: 令和6年4月1日

Anything else is a `ShapeError` (a ValueError) naming the problem and its 1-based character
position, e.g. ``shape 'digit{3,2}': at 6: the upper bound 2 is below the lower bound 3``:
unknown classes, ``*``, ``+`` and ``{n,}`` (there is no unbounded repetition), bounds above 64 or
out of order, unterminated or empty literals, a quantifier with no atom before it, two
quantifiers on one atom, an empty shape, more than 32 items or more than 400 characters.

Matching
========

`Shape.fullmatch` is a state-set (Thompson NFA) simulation. The items are expanded into a linear
sequence of *positions*, one per character an item can consume: ``digit{2,4}`` becomes two
required positions and two optional ones, ``'ab'?`` an optional block of two. The matcher keeps
the set of positions reachable so far and advances it one character at a time; an optional block
can be skipped as a whole. Each character examines each position at most once, so a value of
length L costs at most L x `Shape.positions` tests, and a value whose length is outside
[`Shape.min_length`, `Shape.max_length`] is rejected before any test. `Shape.fullmatch_steps`
returns that count, so the bound can be checked without timing anything.

Compare a backtracking regex engine: ``(a+)+b`` against ``aaaa...a`` (no b) tries every way of
splitting the a's between the two loops, 2^L of them. Even bounded ``.{0,64}.{0,64}.{0,64}x``
makes it retry every split of the value between the three loops before giving up. Neither the
nesting nor the retrying exists here: there is no unbounded or nested repetition to write, and
the state-set matcher does not retry.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

MAX_ITEMS = 32
MAX_TEXT = 400
MAX_REPEAT = 64

Predicate = Callable[[str], bool]


def _digit(c: str) -> bool:
    return "0" <= c <= "9"


def _wide_digit(c: str) -> bool:
    return "\uff10" <= c <= "\uff19"


def _any_digit(c: str) -> bool:
    return _digit(c) or _wide_digit(c)


def _upper(c: str) -> bool:
    return "A" <= c <= "Z"


def _lower(c: str) -> bool:
    return "a" <= c <= "z"


def _letter(c: str) -> bool:
    return c.isalpha()


def _alnum(c: str) -> bool:
    return _upper(c) or _lower(c) or _digit(c)


def _kana(c: str) -> bool:
    return "\u3041" <= c <= "\u309f" or "\u30a0" <= c <= "\u30ff" or "\uff66" <= c <= "\uff9f"


def _kanji(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff" or "\u3400" <= c <= "\u4dbf" or c == "\u3005"


def _space(c: str) -> bool:
    return c.isspace()


def _punct(c: str) -> bool:
    return unicodedata.category(c).startswith("P")


def _any(c: str) -> bool:
    return True


CLASSES: Mapping[str, Predicate] = MappingProxyType(
    {
        "digit": _digit,
        "wide_digit": _wide_digit,
        "any_digit": _any_digit,
        "upper": _upper,
        "lower": _lower,
        "letter": _letter,
        "alnum": _alnum,
        "kana": _kana,
        "kanji": _kanji,
        "space": _space,
        "punct": _punct,
        "any": _any,
    }
)


def _is(expected: str) -> Predicate:
    def test(c: str) -> bool:
        return c == expected

    return test


class ShapeError(ValueError):
    """A shape that is not in the language: the message names the problem and its 1-based position."""

    def __init__(self, text: str, position: int, problem: str) -> None:
        shown = text if len(text) <= 60 else text[:57] + "..."
        super().__init__(f"shape {shown!r}: at {position}: {problem}")
        self.text = text
        self.position = position
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Item:
    """One atom and its repetition: `atom` is a class name, or a literal's characters when `literal`."""

    atom: str
    literal: bool
    low: int
    high: int
    position: int  # 1-based position of the atom in the shape's text

    @property
    def width(self) -> int:
        """Characters one repetition of the atom consumes."""
        return len(self.atom) if self.literal else 1


@dataclass(frozen=True, slots=True)
class Shape:
    """A parsed shape. Build it with `parse_shape`; equal shapes have equal texts."""

    text: str
    items: tuple[Item, ...] = field(compare=False)
    min_length: int = field(init=False, compare=False)
    max_length: int = field(init=False, compare=False)
    positions: int = field(init=False, compare=False)
    _tests: tuple[Predicate, ...] = field(init=False, repr=False, compare=False)
    # _skips[p] is the position after the optional block that starts at p, or -1
    _skips: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        tests: list[Predicate] = []
        skips: list[int] = []
        for item in self.items:
            block = [_is(c) for c in item.atom] if item.literal else [CLASSES[item.atom]]
            for copy in range(item.high):
                start = len(tests)
                tests.extend(block)
                skips.extend([-1] * len(block))
                if copy >= item.low:
                    skips[start] = start + len(block)
        object.__setattr__(self, "min_length", sum(item.low * item.width for item in self.items))
        object.__setattr__(self, "max_length", sum(item.high * item.width for item in self.items))
        object.__setattr__(self, "positions", len(tests))
        object.__setattr__(self, "_tests", tuple(tests))
        object.__setattr__(self, "_skips", tuple(skips))

    def fullmatch(self, value: str) -> bool:
        """Whether the whole of `value` matches the shape."""
        return self.fullmatch_steps(value)[0]

    def fullmatch_steps(self, value: str) -> tuple[bool, int]:
        """`fullmatch`, and the number of (character, position) tests it made: at most len(value) x positions."""
        if not self.min_length <= len(value) <= self.max_length:
            return False, 0
        tests = self._tests
        end = len(tests)
        steps = 0
        current = self._closure((0,))
        for c in value:
            following: list[int] = []
            for state in current:
                if state < end:
                    steps += 1
                    if tests[state](c):
                        following.append(state + 1)
            if not following:
                return False, steps
            current = self._closure(following)
        return end in current, steps

    def _closure(self, states: Iterable[int]) -> set[int]:
        """The states, and every state reachable from them by skipping optional blocks."""
        skips = self._skips
        end = len(skips)
        reached: set[int] = set()
        for state in states:
            while state not in reached:
                reached.add(state)
                if state == end or skips[state] < 0:
                    break
                state = skips[state]
        return reached

    def __str__(self) -> str:
        return self.text


def parse_shape(text: str) -> Shape:
    """Parse a shape (the module docstring has the language); raise `ShapeError` when it is not one."""
    if len(text) > MAX_TEXT:
        raise ShapeError(text, MAX_TEXT + 1, f"the shape is longer than {MAX_TEXT} characters")
    items: list[Item] = []
    n = len(text)
    i = 0
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        c = text[i]
        atom: str
        if c == "'":
            atom, i = _literal(text, i)
            literal = True
        elif c in "?{*+":
            raise ShapeError(text, i + 1, f"the quantifier {c!r} follows no atom (no space before a quantifier)")
        elif _name_char(c):
            while i < n and _name_char(text[i]):
                i += 1
            atom, literal = text[start:i], False
            if atom not in CLASSES:
                known = ", ".join(CLASSES)
                raise ShapeError(text, start + 1, f"unknown class {atom!r} (the classes: {known})")
        else:
            raise ShapeError(text, i + 1, f"unexpected character {c!r}: an item is a class name or a quoted literal")
        low, high, i = _quantifier(text, i)
        if len(items) == MAX_ITEMS:
            raise ShapeError(text, start + 1, f"more than {MAX_ITEMS} items")
        items.append(Item(atom, literal, low, high, start + 1))
        if i < n and not text[i].isspace():
            c = text[i]
            if c in "?{":
                problem = "a second quantifier: an atom takes at most one"
            elif c in "*+":
                problem = _unbounded(repr(c))
            else:
                problem = f"expected a space before the next item, found {c!r}"
            raise ShapeError(text, i + 1, problem)
    if not items:
        raise ShapeError(text, 1, "the shape is empty")
    return Shape(text, tuple(items))


def _name_char(c: str) -> bool:
    return _alnum(c) or c == "_"


def _unbounded(what: str) -> str:
    return f"unbounded repetition {what} is not in the language: write a bound, e.g. {{0,{MAX_REPEAT}}}"


def _literal(text: str, i: int) -> tuple[str, int]:
    """The literal whose opening quote is at index i, and the index after its closing quote."""
    n = len(text)
    chars: list[str] = []
    j = i + 1
    while j < n:
        if text[j] == "'":
            if j + 1 < n and text[j + 1] == "'":
                chars.append("'")
                j += 2
                continue
            break
        chars.append(text[j])
        j += 1
    else:
        raise ShapeError(text, i + 1, "unterminated literal: no closing quote")
    if not chars:
        raise ShapeError(text, i + 1, "empty literal: a literal holds at least one character")
    return "".join(chars), j + 1


def _number(text: str, i: int) -> tuple[str, int]:
    j = i
    while j < len(text) and _digit(text[j]):
        j += 1
    return text[i:j], j


def _quantifier(text: str, i: int) -> tuple[int, int, int]:
    """(low, high, index after the quantifier) for the quantifier at index i, (1, 1, i) when there is none."""
    n = len(text)
    if i >= n:
        return 1, 1, i
    c = text[i]
    if c == "?":
        return 0, 1, i + 1
    if c in "*+":
        raise ShapeError(text, i + 1, _unbounded(repr(c)))
    if c != "{":
        return 1, 1, i

    def found(j: int) -> str:
        return f"found {text[j]!r}" if j < n else "the shape ended"

    low_text, j = _number(text, i + 1)
    if not low_text:
        raise ShapeError(text, j + 1, f"expected a number after '{{', {found(j)}")
    if j < n and text[j] == "}":
        high_text = low_text
    elif j < n and text[j] == ",":
        high_text, j = _number(text, j + 1)
        if not high_text:
            if j < n and text[j] == "}":
                raise ShapeError(text, i + 1, _unbounded("'{n,}'"))
            raise ShapeError(text, j + 1, f"expected a number after ',', {found(j)}")
        if j >= n or text[j] != "}":
            raise ShapeError(text, j + 1, f"expected '}}', {found(j)}")
    else:
        raise ShapeError(text, j + 1, f"expected ',' or '}}', {found(j)}")
    low, high = int(low_text), int(high_text)
    if high < low:
        raise ShapeError(text, i + 1, f"the upper bound {high} is below the lower bound {low}")
    if high > MAX_REPEAT:
        raise ShapeError(text, i + 1, f"the bound {high} is above the limit {MAX_REPEAT}")
    return low, high, j + 1
