"""What users read names no internal tracker: no "issue 14" in any command's --help (every
sub-command of `python -m kanon_tools` and `kanon-records`), in a macro's message or the SQL it
writes (a macro file without its Jinja comments), in a description `dbt docs` shows, in a message
the Python tools print (their string literals; docstrings reach users only as --help, checked as
such), or in the user's pages (the README, docs/README.md, docs/pseudonyms.md, docs/reference/).
A user cannot open the tracker: the text points to the docs instead. Comments, the decision
records and the development notes are for contributors and may cite issues."""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterator
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # no stubs installed; only safe_load is used
from kanon_tools.cli import build_parser
from kanon_tools.cli.records import build_parser as records_parser
from support import ROOT

# "issue 14", "Issues #12", "ticket no. 3", and a bare GitHub reference "#34" (not a CSS colour
# such as "#555;", an HTML entity "&#39;" or a Jinja comment "{#")
TRACKER = re.compile(r"\b(?:issues?|tickets?)\s*(?:#|no\.?|number)?\s*\d+|(?<![\w&#{])#\d{1,5}(?![\w;])", re.I)
JINJA_COMMENT = re.compile(r"{#.*?#}", re.S)
USER_PAGES = ("README.md", "docs/README.md", "docs/pseudonyms.md", "docs/reference")
PYTHON = ROOT / "python_helpers" / "kanon_tools"


def helps(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, str]]:
    """Every (command, --help text) under `parser`, its sub-commands' at any depth included."""
    yield path, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from helps(sub, f"{path} {name}")


def macro_text(source: str) -> str:
    """A macro file as users meet it: its messages and the SQL it writes, without Jinja comments."""
    return JINJA_COMMENT.sub("", source)


def descriptions(node: object) -> Iterator[str]:
    """Every `description` of a dbt properties file (what `dbt docs` shows), at any depth."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "description" and isinstance(value, str):
                yield value
            else:
                yield from descriptions(value)
    elif isinstance(node, list):
        for item in node:
            yield from descriptions(item)


def python_messages(source: str) -> Iterator[str]:
    """The string literals of a module (f-strings' literal parts included), docstrings aside."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.value


def json_strings(node: object) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield str(key)
            yield from json_strings(value)
    elif isinstance(node, list):
        for item in node:
            yield from json_strings(item)


def mentions(where: str, text: str) -> list[str]:
    return [f"{where}: {m.group(0)!r}" for m in TRACKER.finditer(text)]


def test_no_help_of_any_command_cites_an_issue() -> None:
    found = [hit for parser, prog in ((build_parser(), "python -m kanon_tools"), (records_parser(), "kanon-records"))
             for command, text in helps(parser, prog) for hit in mentions(command, text)]
    assert found == []


def test_no_macro_message_or_dbt_docs_description_cites_an_issue() -> None:
    found = [hit for path in sorted((ROOT / "macros").rglob("*.sql"))
             for hit in mentions(str(path.relative_to(ROOT)), macro_text(path.read_text(encoding="utf-8")))]
    for folder in ("macros", "models"):
        for path in sorted((ROOT / folder).rglob("*.yml")):
            for text in descriptions(yaml.safe_load(path.read_text(encoding="utf-8"))):
                found += mentions(str(path.relative_to(ROOT)), text)
    assert found == []


def test_no_message_of_the_tools_cites_an_issue() -> None:
    found = [hit for path in sorted(PYTHON.rglob("*.py"))
             for text in python_messages(path.read_text(encoding="utf-8"))
             for hit in mentions(str(path.relative_to(ROOT)), text)]
    for path in sorted(PYTHON.rglob("*.json")):
        found += [hit for text in json_strings(json.loads(path.read_text(encoding="utf-8")))
                  for hit in mentions(str(path.relative_to(ROOT)), text)]
    assert found == []


def test_no_user_page_cites_an_issue() -> None:
    pages: list[Path] = []
    for name in USER_PAGES:
        path = ROOT / name
        pages += sorted(path.rglob("*.md")) if path.is_dir() else [path]
    assert len(pages) > 5
    found = [hit for page in pages for hit in mentions(str(page.relative_to(ROOT)), page.read_text(encoding="utf-8"))]
    assert found == []


def test_the_checks_find_an_issue_where_a_user_reads_it() -> None:
    """The scanners themselves: a reference in a help, a macro's message, a description and a
    Python message is found; a Jinja comment, a docstring, a CSS colour and an entity are not."""
    parser = argparse.ArgumentParser(prog="tool", description="Fast now (issue 14, ADR 11).")
    sub = parser.add_subparsers().add_parser("verb", help="see #34")
    sub.add_argument("--x", help="as Issues #12 asked")
    found = [hit for command, text in helps(parser, "tool") for hit in mentions(command, text)]
    assert found == ["tool: 'issue 14'", "tool: '#34'", "tool verb: 'Issues #12'"]
    macro = "{#- why: issue 7 -#}{% macro m() %}{{ exceptions.raise_compiler_error('m: see issue 9') }}{% endmacro %}"
    assert mentions("m", macro_text(macro)) == ["m: 'issue 9'"]
    assert list(descriptions({"macros": [{"name": "m", "description": "as in ticket 3",
                                          "arguments": [{"description": "x"}]}]})) == ["as in ticket 3", "x"]
    module = '"""Module (issue 1)."""\ndef f():\n    """Doc, issue 2."""\n    raise SystemExit(f"kanon: issue {3}")\n'
    assert list(python_messages(module)) == ["kanon: issue "]  # the literal part; 3 is a value
    assert mentions("p", "kanon: issue 4 applies") == ["p: 'issue 4'"]
    assert mentions("css", "td { color: #555; } &#39; {#- c -#} # 1 heading") == []
