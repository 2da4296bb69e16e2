"""scripts/lint_macros.py, the limits on macros that `make lint` checks: a body of MAX_BODY_LINES
lines passes, one line more fails with file:line name length; a line of MAX_WIDTH characters
passes, one character more fails with file:line width. No warehouse."""

from __future__ import annotations

import configparser
import importlib.util
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest
from support import ROOT

SCRIPT = ROOT / "scripts" / "lint_macros.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lint_macros", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


lint_macros = _load()


def _macro(name: str, body_lines: int, kind: str = "macro") -> str:
    """A macro (or test, materialization) whose body is `body_lines` lines long."""
    body = "".join(f"  {{%- set x{i} = {i} -%}}\n" for i in range(body_lines))
    return f"{{% {kind} {name}(a) %}}\n{body}{{% end{kind} %}}\n"


def _run(*arguments: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, arguments)], capture_output=True, text=True,
                          check=False, cwd=ROOT)


def test_a_body_of_the_limit_passes(tmp_path: Path) -> None:
    (tmp_path / "fits.sql").write_text(_macro("fits", lint_macros.MAX_BODY_LINES))
    result = _run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_a_body_one_line_longer_fails_naming_file_line_name_and_length(tmp_path: Path) -> None:
    limit = lint_macros.MAX_BODY_LINES
    (tmp_path / "a.sql").write_text("{#- a comment -#}\n" + _macro("fits", limit) + "\n"
                                    + _macro("too_long", limit + 1))
    result = _run(tmp_path)
    assert result.returncode == 1
    # the second macro opens after the comment (1 line), the first macro (limit + 2) and a blank line
    assert result.stdout.splitlines() == [f"{tmp_path / 'a.sql'}:{limit + 5} too_long {limit + 1}"]


@pytest.mark.parametrize("kind", ["test", "materialization"])
def test_tests_and_materializations_are_bodies_too(tmp_path: Path, kind: str) -> None:
    (tmp_path / "b.sql").write_text(_macro("long_one", lint_macros.MAX_BODY_LINES + 1, kind))
    assert _run(tmp_path).returncode == 1


def test_a_nested_call_block_and_a_tag_in_a_comment_do_not_end_or_open_a_body(tmp_path: Path) -> None:
    text = ("{#- {% macro in_a_comment() %} -#}\n{% macro outer() %}\n"
            "  {% call statement('x') %}select 1{% endcall %}\n  {%- set y = 1 -%}\n{%- endmacro %}\n")
    path = tmp_path / "c.sql"
    path.write_text(text)
    assert [(body.name, body.line, body.length) for body in lint_macros.bodies(path)] == [("outer", 2, 2)]


def test_a_macro_without_its_end_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "d.sql").write_text("{% macro open_ended() %}\n  select 1\n")
    result = _run(tmp_path)
    assert result.returncode == 2
    assert "open_ended has no endmacro" in result.stderr


def test_a_line_of_the_width_passes(tmp_path: Path) -> None:
    line = "-- " + "x" * (lint_macros.MAX_WIDTH - 3)
    (tmp_path / "narrow.sql").write_text(f"{line}\n{_macro('narrow', 1)}")
    result = _run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


def test_a_line_one_character_wider_fails_naming_file_line_and_width(tmp_path: Path) -> None:
    width = lint_macros.MAX_WIDTH + 1
    wide = "{#- " + "x" * (width - 8) + " -#}"  # a comment is a line like any other
    (tmp_path / "wide.sql").write_text(f"{_macro('fits', 1)}{wide}\n")
    result = _run(tmp_path)
    assert result.returncode == 1
    # the macro takes three lines: its tag, one body line and its end
    assert result.stdout.splitlines() == [f"{tmp_path / 'wide.sql'}:4 {width}"]


def test_max_width_sets_the_limit(tmp_path: Path) -> None:
    (tmp_path / "e.sql").write_text("select 1\n")
    assert _run(tmp_path).returncode == 0
    result = _run("--max-width", "7", tmp_path)
    assert (result.returncode, result.stdout) == (1, f"{tmp_path / 'e.sql'}:1 8\n")


def test_the_width_is_the_one_ruff_and_sqlfluff_declare() -> None:
    ruff = tomllib.loads((ROOT / "ruff.toml").read_text())
    sqlfluff = configparser.ConfigParser()
    sqlfluff.read_string((ROOT / ".sqlfluff").read_text())
    assert ruff["line-length"] == lint_macros.MAX_WIDTH
    assert sqlfluff.getint("sqlfluff", "max_line_length") == lint_macros.MAX_WIDTH


def test_the_package_macros_pass() -> None:
    result = _run(ROOT / "macros")
    assert result.returncode == 0, result.stdout + result.stderr
