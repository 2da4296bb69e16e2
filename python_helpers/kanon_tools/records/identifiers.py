"""Identifier-shaped values found in text, counted: the leak checks of the record release (issue 14).

A column that should hold no direct identifier (a free-text note, a "remarks" field) may still
hold one: a phone number, a My Number, an e-mail address, a card number. These detectors find
them as tokens inside text and report how many, by kind. Counts only: no function here returns,
logs or raises with a value of the data.

Normalization. Everything works on NFKC-normalized text, so full-width digits (０９０), the
full-width hyphen (－), the full-width at sign (＠) and full-width Latin letters count like their
ASCII forms, and the ideographic space becomes a space. NFKC leaves several dashes alone; between
two digits these count as hyphens too: ‐ (U+2010, also what NFKC makes of ‑ U+2011), ‒ (U+2012,
the figure dash), – (U+2013), — (U+2014), ― (U+2015), − (U+2212, minus) and ー (U+30FC, the
katakana long mark, often typed for a hyphen in Japanese text; NFKC also maps the half-width ｰ
to it). Only ASCII digits count as digits after NFKC.

Kinds (the keys of `KINDS`):

my_number
    Japan's individual number (個人番号): 12 digits whose 12th is the check digit of the first 11
    (`my_number_valid`), written in any grouping (``1234 5678 9018``, ``1234-5678-9018``).
card
    A payment card number: 13 to 19 digits passing the Luhn check, not all one digit
    (`luhn_valid`), in any grouping.
phone
    A Japanese phone number (`phone_jp`).
email
    An e-mail address shape (`email`).

Finding tokens in text (`scan_text`):

* E-mail candidates are maximal runs of the characters an address may hold (ASCII letters and
  digits, ``._%+-`` and ``@``) that contain an ``@``, trimmed of ``._%+-`` at both ends. A run
  rather than a space-delimited word, because Japanese text puts no space around an address
  (``メールはtaro@example.comまで``); anything outside the alphabet (、。「」（）, kana, kanji,
  spaces, commas, angle brackets) ends it. An address found is blanked out before the digits are
  looked at, so the digits inside one are not counted a second time as a phone number.
* Digit candidates are maximal runs of digit groups joined by single separators (a space, or a
  hyphen or one of the dashes above), with a ``+`` right before the first digit included. Each is
  classified, first match wins: phone (`phone_jp` on its text), else my_number (12 digits once the
  separators are removed, check digit right), else card (13 to 19 digits, Luhn). A 12-digit
  number whose check digit is wrong is not a My Number, and counts as nothing.
* When a whole candidate is none of these and has spaces in it, its space-separated parts are
  tried, left to right, in windows of up to four parts, longest window first; a window that
  classifies counts and the search resumes after it. This keeps one identifier from hiding in a
  run of numbers that happen to be separated by single spaces, as in an address line
  ``〒100-0001 03-1234-5678``. The work stays linear in the length of the text.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

KINDS: tuple[str, ...] = ("my_number", "card", "phone", "email")

# Dashes that count as hyphens between digits, after NFKC (see the module docstring).
HYPHENS = frozenset("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u30fc")

_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_ASCII_DIGITS = frozenset("0123456789")
_LOCAL_CHARS = _ASCII_LETTERS | _ASCII_DIGITS | frozenset("._%+-")
_LABEL_CHARS = _ASCII_LETTERS | _ASCII_DIGITS | frozenset("-")
_EMAIL_CHARS = _LOCAL_CHARS | frozenset("@")
_EMAIL_TRIM = "._%+-"

# Group lengths of the hyphenated (or spaced) Japanese forms, by total digits:
# 10 digits: 0X-XXXX-XXXX, 0XX-XXX-XXXX, 0XXX-XX-XXXX, 0XXXX-X-XXXX and 0120-XXX-XXX (toll-free,
# 0570 navi dial); 11 digits: 0X0-XXXX-XXXX (mobile, 050 IP phones) and 0800-XXX-XXXX (toll-free).
_PHONE_GROUPS = frozenset({(2, 4, 4), (3, 3, 4), (4, 2, 4), (5, 1, 4), (4, 3, 3), (3, 4, 4), (4, 3, 4)})

# How many space-separated parts a window holds at most: +81 90 1234 5678 and 4111 1111 1111 1111 have four.
_MAX_WINDOW = 4


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _is_digit(c: str) -> bool:
    return "0" <= c <= "9"


def _is_separator(c: str) -> bool:
    return c == " " or c in HYPHENS


def my_number_valid(digits: str) -> bool:
    """Whether `digits` is exactly 12 ASCII digits whose last is the My Number check digit of the first 11.

    The check digit (総務省令 on 個人番号): P_n is the n-th of the first 11 digits counted from the
    right, Q_n = n + 1 for n <= 6 and n - 5 for n >= 7; r = (sum of P_n x Q_n) mod 11; the check
    digit is 0 when r <= 1, else 11 - r.
    """
    if len(digits) != 12 or not all(_is_digit(c) for c in digits):
        return False
    total = 0
    for n in range(1, 12):
        p = int(digits[11 - n])
        q = n + 1 if n <= 6 else n - 5
        total += p * q
    r = total % 11
    return int(digits[11]) == (0 if r <= 1 else 11 - r)


def luhn_valid(digits: str) -> bool:
    """Whether `digits` is a card-number shape: 13 to 19 ASCII digits, not all one digit, Luhn check right."""
    if not 13 <= len(digits) <= 19 or not all(_is_digit(c) for c in digits):
        return False
    if len(set(digits)) == 1:
        return False
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def _groups(text: str) -> tuple[list[str], list[str]] | None:
    """Digit groups and the single separators between them; None if `text` is anything else."""
    groups: list[str] = []
    separators: list[str] = []
    start = 0
    for i, c in enumerate(text):
        if _is_digit(c):
            continue
        if not _is_separator(c) or i == start:
            return None
        groups.append(text[start:i])
        separators.append("-" if c in HYPHENS else " ")
        start = i + 1
    if start == len(text):
        return None
    groups.append(text[start:])
    return groups, separators


def _domestic_phone(text: str) -> bool:
    split = _groups(text)
    if split is None:
        return False
    groups, separators = split
    digits = "".join(groups)
    if len(digits) not in (10, 11) or digits[0] != "0":
        return False
    if len(groups) == 1:
        return True
    if len(groups) != 3 or separators[0] != separators[1]:
        return False
    return (len(groups[0]), len(groups[1]), len(groups[2])) in _PHONE_GROUPS


def phone_jp(token: str) -> bool:
    """Whether `token` (NFKC-normalized here) is a Japanese phone number.

    Accepted, and nothing else: 10 or 11 digits starting with 0, either contiguous
    (``09012345678``) or in three groups joined by one kind of separator, hyphens or spaces
    (``03-1234-5678``, ``045-123-4567``, ``0467-12-3456``, ``090-1234-5678``, ``090 1234 5678``,
    toll-free ``0120-123-456`` and ``0800-123-4567``; the group lengths allowed are in
    `_PHONE_GROUPS`); and the international form, ``+81`` then an optional space or hyphen and
    the same number without its leading 0 (``+81-90-1234-5678``, ``+81 90 1234 5678``,
    ``+819012345678``, ``+81-3-1234-5678``). ``+81 090...`` (the 0 kept) is not accepted.
    """
    text = _normalize(token)
    if text.startswith("+"):
        if not text.startswith("+81"):
            return False
        rest = text[3:]
        if rest and _is_separator(rest[0]):
            rest = rest[1:]
        if not rest or rest[0] == "0":
            return False
        return _domestic_phone("0" + rest)
    return _domestic_phone(text)


def email(token: str) -> bool:
    """Whether `token` (NFKC-normalized here) has the shape of an e-mail address.

    local@domain: exactly one @; the local part 1 to 64 characters of [A-Za-z0-9._%+-]; the domain
    at least two dot-separated labels of 1 to 63 characters of [A-Za-z0-9-], the last (the TLD)
    two or more ASCII letters. Written as plain loops over character sets rather than a regular
    expression, so there is no quantifier to nest and the check is linear in the token's length.
    """
    text = _normalize(token)
    at = text.find("@")
    if at < 0 or text.find("@", at + 1) >= 0:
        return False
    local, domain = text[:at], text[at + 1 :]
    if not 1 <= len(local) <= 64 or not all(c in _LOCAL_CHARS for c in local):
        return False
    labels = domain.split(".")
    if len(labels) < 2:
        return False
    for label in labels:
        if not 1 <= len(label) <= 63 or not all(c in _LABEL_CHARS for c in label):
            return False
    tld = labels[-1]
    return len(tld) >= 2 and all(c in _ASCII_LETTERS for c in tld)


def _email_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every e-mail address in normalized text: runs of the address alphabet, trimmed."""
    n = len(text)
    i = 0
    while i < n:
        if text[i] not in _EMAIL_CHARS:
            i += 1
            continue
        start = i
        while i < n and text[i] in _EMAIL_CHARS:
            i += 1
        run = text[start:i]
        if "@" in run:
            trimmed = run.strip(_EMAIL_TRIM)
            if trimmed and email(trimmed):
                yield start, i


def _digit_candidates(text: str) -> Iterator[str]:
    """Maximal runs of digit groups joined by single separators, with a '+' right before them."""
    n = len(text)
    i = 0
    while i < n:
        if not _is_digit(text[i]):
            i += 1
            continue
        start = i - 1 if i > 0 and text[i - 1] == "+" else i
        j = i
        while True:
            while j < n and _is_digit(text[j]):
                j += 1
            if j + 1 < n and _is_separator(text[j]) and _is_digit(text[j + 1]):
                j += 1
                continue
            break
        yield text[start:j]
        i = j


def _classify(candidate: str) -> str | None:
    if phone_jp(candidate):
        return "phone"
    digits = "".join(c for c in candidate if _is_digit(c))
    if my_number_valid(digits):
        return "my_number"
    if luhn_valid(digits):
        return "card"
    return None


def _findings(candidate: str) -> Iterator[str]:
    """The kinds found in one digit candidate: the whole of it, else windows of its space-separated parts."""
    kind = _classify(candidate)
    if kind is not None:
        yield kind
        return
    parts = candidate.split(" ")
    i = 0
    while i < len(parts):
        for j in range(min(len(parts), i + _MAX_WINDOW), i, -1):
            if i == 0 and j == len(parts):
                continue  # the whole candidate, already tried
            kind = _classify(" ".join(parts[i:j]))
            if kind is not None:
                yield kind
                i = j
                break
        else:
            i += 1


def scan_text(text: str | None) -> Counter[str]:
    """How many identifiers of each kind (keys from `KINDS`) one value holds; empty for None or none found."""
    found: Counter[str] = Counter()
    if text is None:
        return found
    normalized = _normalize(text)
    blanked = list(normalized)
    for start, end in _email_spans(normalized):
        found["email"] += 1
        blanked[start:end] = "\n" * (end - start)
    for candidate in _digit_candidates("".join(blanked)):
        found.update(_findings(candidate))
    return found


@dataclass(frozen=True)
class LeakCounts:
    """What a scan of one column found: counts only.

    `checked`: non-null values scanned; `skipped`: None values; `found`: for every kind in
    `KINDS`, how many values hold at least one identifier of that kind.
    """

    checked: int
    skipped: int
    found: dict[str, int]


def scan_values(values: Iterable[str | None]) -> LeakCounts:
    """Scan a column's values with `scan_text` and count the values with findings, by kind."""
    checked = skipped = 0
    found = dict.fromkeys(KINDS, 0)
    # a finding depends on a value's text alone: each distinct value is scanned once, and counts
    # as often as it occurs (a million-row column of a thousand postal codes: a thousand scans)
    for value, times in Counter(values).items():
        if value is None:
            skipped += times
            continue
        checked += times
        for kind in scan_text(value):
            found[kind] += times
    return LeakCounts(checked=checked, skipped=skipped, found=found)
