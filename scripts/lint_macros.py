"""Fail when a macro, generic test or materialization of macros/**/*.sql is too long or too wide.

A body is the lines between the `{% macro %}` (or `{% test %}`, `{% materialization %}`) line and
the line of its `{% endmacro %}`-style end; more than MAX_BODY_LINES of them is an error, listed
as `file:line name length`. Jinja comments are skipped (a comment may quote a tag).

Every line of a file, Jinja comments included, is at most MAX_WIDTH characters wide; a wider one
is an error, listed as `file:line width`. MAX_WIDTH is ruff.toml's `line-length` and .sqlfluff's
`max_line_length`: sqlfluff never lints macro bodies, so this is where macros meet that width.

    python scripts/lint_macros.py [--max N] [--max-width N] [PATH ...]

PATH: files or folders (folders: their *.sql, recursively); default: macros/ beside this script.
Exit 0 when every body fits and every line is narrow enough, 1 when one is not, 2 on a tag
without its end.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

MAX_BODY_LINES = 120
MAX_WIDTH = 120  # ruff.toml's line-length, .sqlfluff's max_line_length
ROOT = Path(__file__).resolve().parents[1]
KINDS = ("macro", "materialization", "test")
COMMENT = re.compile(r"{#.*?#}", re.DOTALL)
TAG = re.compile(r"{%[-+]?\s*(end)?(" + "|".join(KINDS) + r")\b\s*(\w*)", re.DOTALL)


@dataclass(frozen=True)
class Body:
    """One macro-like block: where it opens, its name, and how many lines lie between its tags."""

    path: Path
    line: int
    name: str
    length: int


@dataclass(frozen=True)
class WideLine:
    """One line wider than the limit: where it is and how many characters it holds."""

    path: Path
    line: int
    width: int


class UnbalancedError(ValueError):
    """A tag opens a block that never ends, or ends one that never opened."""


def _blank_comments(text: str) -> str:
    """The text with every Jinja comment replaced by as many newlines as it spans."""
    return COMMENT.sub(lambda match: "\n" * match.group(0).count("\n"), text)


def bodies(path: Path, text: str | None = None) -> Iterator[Body]:
    """Every macro, materialization and test defined in `path` (its text, when given)."""
    source = _blank_comments(path.read_text() if text is None else text)
    open_blocks: list[tuple[str, str, int]] = []
    for match in TAG.finditer(source):
        end, kind, name = match.group(1), match.group(2), match.group(3)
        line = source.count("\n", 0, match.start()) + 1
        if not end:
            open_blocks.append((kind, name, line))
            continue
        if not open_blocks or open_blocks[-1][0] != kind:
            raise UnbalancedError(f"{path}:{line}: end{kind} without its {kind}")
        _, opened_name, opened = open_blocks.pop()
        yield Body(path, opened, opened_name, max(line - opened - 1, 0))
    if open_blocks:
        kind, name, line = open_blocks[-1]
        raise UnbalancedError(f"{path}:{line}: {kind} {name} has no end{kind}")


def sql_files(paths: Iterable[Path]) -> list[Path]:
    """The .sql files named, and those under the folders named, in a stable order."""
    found: list[Path] = []
    for path in paths:
        found.extend(sorted(path.rglob("*.sql")) if path.is_dir() else [path])
    return found


def too_long(paths: Iterable[Path], max_lines: int = MAX_BODY_LINES) -> list[Body]:
    """The bodies longer than `max_lines`, file by file, in the order they open."""
    return [body for path in sql_files(paths) for body in bodies(path) if body.length > max_lines]


def too_wide(paths: Iterable[Path], max_width: int = MAX_WIDTH) -> list[WideLine]:
    """The lines wider than `max_width` characters, file by file, top to bottom."""
    return [WideLine(path, number, len(line))
            for path in sql_files(paths)
            for number, line in enumerate(path.read_text().splitlines(), start=1)
            if len(line) > max_width]


def _display(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[ROOT / "macros"])
    parser.add_argument("--max", type=int, default=MAX_BODY_LINES, help="the longest body allowed, in lines")
    parser.add_argument("--max-width", type=int, default=MAX_WIDTH,
                        help="the widest line allowed, in characters")
    args = parser.parse_args(argv)
    try:
        long_bodies = too_long(args.paths, args.max)
    except UnbalancedError as error:
        print(f"lint_macros: {error}", file=sys.stderr)
        return 2
    wide_lines = too_wide(args.paths, args.max_width)
    for body in long_bodies:
        print(f"{_display(body.path)}:{body.line} {body.name} {body.length}")
    for wide in wide_lines:
        print(f"{_display(wide.path)}:{wide.line} {wide.width}")
    if long_bodies:
        print(f"lint_macros: {len(long_bodies)} body(ies) longer than {args.max} lines: split them "
              "into named pieces", file=sys.stderr)
    if wide_lines:
        print(f"lint_macros: {len(wide_lines)} line(s) wider than {args.max_width} characters: wrap them "
              "inside a Jinja tag, where the wrapping is not output", file=sys.stderr)
    return 1 if long_bodies or wide_lines else 0


if __name__ == "__main__":
    sys.exit(main())
