"""`python -m kanon_tools` (or another command's main()) run as a user runs it, or in this process
as its own process would run it: seconds of start-up saved on every call (ADR 14)."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from kanon_tools.dbt_runner import swapped_environment


def kanon_tools_cli(argv: list[str], env: dict[str, str], cwd: Path, *, process: bool = False,
                    timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`python -m kanon_tools <argv>` with `env` in `cwd`: its exit code, stdout and stderr.

    process=True runs it as a user does, a Python process of its own (a few tests per command
    keep that). Otherwise its main() runs here (`main_in_process`): seconds of start-up saved on
    every call."""
    program = [sys.executable, "-m", "kanon_tools"]
    if process:
        return subprocess.run([*program, *argv], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    from kanon_tools.__main__ import main

    return main_in_process(main, program, argv, env, cwd)


def main_in_process(main: Callable[[list[str]], int], program: list[str], argv: list[str], env: dict[str, str],
                    cwd: Path) -> subprocess.CompletedProcess[str]:
    """`program`'s main() run here on `argv` (its arguments, without the program), with `env` and
    `cwd`, as its process would run it: argparse's exits and an uncaught exception's traceback
    included, and the dbt invocations it makes (kanon_tools.dbt_runner). Returns what
    subprocess.run would: the exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with swapped_environment(env), contextlib.chdir(cwd), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as stop:  # argparse, and commands that exit
            code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
            if isinstance(stop.code, str):
                err.write(stop.code + "\n")
        except Exception:  # as Python's own handler would: the traceback on stderr, exit 1
            traceback.print_exc(file=err)
            code = 1
    return subprocess.CompletedProcess([*program, *argv], code, out.getvalue(), err.getvalue())
