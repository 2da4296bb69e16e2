"""argparse types shared by the sub-commands: a bad value is a usage error (exit 2), said in one line.

argparse turns the ArgumentTypeError these raise into `error: argument --x: <message>`, before
the command opens a database or writes a file. Each message says the valid range and repeats
the value it got.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from decimal import Decimal, InvalidOperation

# The largest count any command takes: counts end up in numpy int64 arrays and SQL bigints.
MAX_COUNT = 2**63 - 1
COUNT_EXAMPLES = "5000, 5_000, 10k, 1.5M, 1e7"


def whole_number(minimum: int, maximum: int | None = None, hint: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number (not 2.5, not 'true') from `minimum` to `maximum`."""
    wanted = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            value = None
        if value is None or value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be a whole number {wanted}{hint}, got {text!r}")
        return value

    return parse


def finite_number(minimum: float, maximum: float | None, wanted: str) -> Callable[[str], float]:
    """An argparse type: a finite float (nan and inf are refused) from `minimum` to `maximum`;
    `wanted` says what is asked for, in the message."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= minimum and (maximum is None or value <= maximum)):
            raise argparse.ArgumentTypeError(f"must be {wanted}, got {text!r}")
        return value

    return parse


# A share from 0 to 1.
share = finite_number(0.0, 1.0, "a share from 0 to 1 (0.05 for 5 points)")


def parse_count(text: str, minimum: int = 1) -> int | None:
    """A count written as 5000, 5_000, 10k, 1.5M or 1e7, from minimum to MAX_COUNT; else None.

    Exact decimal arithmetic, not float: 1.005M is 1,005,000 (as a float product it is
    1004999.9999999999), and 1e999 is too large rather than an OverflowError.
    """
    cleaned = text.strip().replace("_", "").replace(",", "")
    shift = {"k": 3, "m": 6}.get(cleaned[-1:].lower(), 0)
    try:
        number = Decimal(cleaned[:-1] if shift else cleaned)
    except InvalidOperation:
        return None
    sign, digits, exponent = number.as_tuple()
    if not number.is_finite() or not isinstance(exponent, int):
        return None
    exponent += shift
    if exponent < 0:  # a whole number only if every digit after the point is 0
        if any(digits[exponent:]):
            return None
        digits, exponent = digits[:exponent], 0
    if len(digits) + exponent > len(str(MAX_COUNT)):  # too large: say so before building the integer
        return None
    value = int("".join(map(str, digits)) or "0") * 10**exponent * (-1 if sign else 1)
    return value if minimum <= value <= MAX_COUNT else None


def count(minimum: int = 1, hint: str = "") -> Callable[[str], int]:
    """An argparse type: a count of at least `minimum` (see parse_count for the notation)."""

    def parse(text: str) -> int:
        value = parse_count(text, minimum)
        if value is None:
            raise argparse.ArgumentTypeError(
                f"must be a count >= {minimum}{hint} (a whole number: {COUNT_EXAMPLES}), got {text!r}"
            )
        return value

    return parse


def count_list(minimum: int = 1, hint: str = "", what: str = "counts") -> Callable[[str], list[int]]:
    """An argparse type: comma-separated counts of at least `minimum`, like 200k,1M; '' is none."""

    def parse(text: str) -> list[int]:
        values = []
        for item in text.split(","):
            if not item.strip():  # '' for none, and a stray comma, are allowed
                continue
            value = parse_count(item, minimum)
            if value is None:
                raise argparse.ArgumentTypeError(
                    f"must be comma-separated {what} >= {minimum}{hint}, like 200k,1M, or '' for none; "
                    f"{item!r} is not, in {text!r}"
                )
            values.append(value)
        return values

    return parse


def choice_list(choices: tuple[str, ...]) -> Callable[[str], list[str]]:
    """An argparse type: one or more of `choices`, comma-separated, in the order given."""

    def parse(text: str) -> list[str]:
        chosen = [part.strip() for part in text.split(",") if part.strip()]
        if not chosen or any(part not in choices for part in chosen):
            raise argparse.ArgumentTypeError(f"must be one or more of {', '.join(choices)}, got {text!r}")
        return chosen

    return parse


min_cell = whole_number(2, hint=" (like k)")
positive_count = whole_number(1)
