"""The one way Python calls dbt: the tests, the benchmark and the CLI all go through `DbtRunner`.

dbt runs as a subprocess, the `dbt` executable next to `sys.executable` (the virtualenv's), never
in-process: a dbt invocation sets global flags, logging and adapter state that outlive it, and
the benchmark measures the process's own memory. Everything an invocation needs is given, not
inherited from where Python happens to run: the project directory, the environment (profiles.yml
reads it), where dbt writes its artifacts (target path) and its log (log path).

    runner = DbtRunner(project_dir, env=env, target_path=tmp / "target", log_path=tmp / "logs")
    result = runner.run("build", "--select", "my_model")      # DbtResult; result.ok, .results
    value = runner.run_operation("kanon.cli_audit_log", {})   # what the macro emitted as JSON

A macro hands a value back by printing one line `KANON_JSON <json>` (`kanon._cli_emit(value)`
does it): dbt's `print()` reaches stdout unformatted, even under --quiet, where `log()` would
prefix a timestamp and `--log-format json` would wrap it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DBT = str(Path(sys.executable).parent / "dbt")
JSON_MARKER = "KANON_JSON "
# dbt colours its log lines and prefixes them with a time even when stdout is not a terminal.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TIMESTAMP = re.compile(r"^\d\d:\d\d:\d\d(\.\d+)?\s+")
# dbt's error titles ("Runtime Error", "Database Error in model x (models/x.sql)"), above the message
_TITLE = re.compile(r"^[A-Z][A-Za-z ]*Error( in .*)?$")


@dataclass
class DbtResult:
    """One dbt invocation: its exit code, everything it printed, and its nodes' results."""

    returncode: int
    output: str
    # run_results.json's entries, keyed both by node name (tests are looked up by name) and by unique_id
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    invocation_id: str | None = None
    peak_rss_mb: float | None = None  # only when run(..., measure_rss=True)

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def status(self, name: str) -> str:
        return str(self.results[name]["status"])

    def execution_times(self) -> dict[str, float]:
        """Each node's own execution time (dbt's, without its start-up), by node name."""
        return {key: float(item["execution_time"]) for key, item in self.results.items() if key == _name(item)}

    def error(self) -> str:
        """dbt's error in one line: the first line of the message after 'Encountered an error'
        (past its titles), else the last line dbt printed."""
        lines = [_TIMESTAMP.sub("", _ANSI.sub("", line)).rstrip() for line in self.output.splitlines()]
        for start in range(len(lines) - 1, -1, -1):
            if "Encountered an error" not in lines[start]:
                continue
            for line in lines[start + 1:]:
                if line.strip().startswith(">"):  # the macro call stack: no message found
                    break
                if line.startswith((" ", "\t")) and line.strip() and not _TITLE.match(line.strip()):
                    return line.strip()
            break
        printed = [line.strip() for line in lines if line.strip()]
        return printed[-1] if printed else f"dbt exited with code {self.returncode}"

    def emitted(self) -> list[Any]:
        """Every value a macro printed as `KANON_JSON <json>`, in order."""
        values = []
        for line in self.output.splitlines():
            text = _ANSI.sub("", line)
            at = text.find(JSON_MARKER)
            if at >= 0:
                values.append(json.loads(text[at + len(JSON_MARKER):]))
        return values


class DbtError(RuntimeError):
    """A dbt invocation that failed, with dbt's error in one line (`message`) and the whole result."""

    def __init__(self, message: str, result: DbtResult) -> None:
        super().__init__(message)
        self.message = message
        self.result = result


def _name(item: Mapping[str, Any]) -> str:
    # unique ids are <type>.<package>.<name>[.<hash>]
    return str(item["unique_id"]).split(".")[2]


class DbtRunner:
    """Runs dbt in one project with a fixed environment, target path and log path.

    env: the whole environment of the dbt process (default: this process's). profiles_dir and
    target, when given, override DBT_PROFILES_DIR and DBT_TARGET in it. target_path / log_path:
    where dbt writes its artifacts and log (default: dbt's, inside the project). cwd: where dbt
    runs, which is what relative paths in profiles.yml resolve against (default: project_dir).
    timeout: seconds before dbt is killed and TimeoutExpired raised; None for no limit.
    """

    def __init__(
        self,
        project_dir: Path,
        *,
        env: Mapping[str, str] | None = None,
        target_path: Path | None = None,
        log_path: Path | None = None,
        profiles_dir: Path | None = None,
        target: str | None = None,
        cwd: Path | None = None,
        timeout: float | None = 900,
    ) -> None:
        self.project_dir = Path(project_dir)
        self.env = dict(os.environ if env is None else env)
        self.env.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        # Set through the environment, not flags: every sub-command (deps, run-operation) reads them.
        for name, value in (("DBT_TARGET_PATH", target_path), ("DBT_LOG_PATH", log_path),
                            ("DBT_PROFILES_DIR", profiles_dir), ("DBT_TARGET", target)):
            if value is not None:
                self.env[name] = str(value)
        self.target_path = Path(target_path) if target_path is not None else self.project_dir / "target"
        self.cwd = Path(cwd) if cwd is not None else self.project_dir
        self.timeout = timeout

    def run(self, *args: str, measure_rss: bool = False) -> DbtResult:
        """`dbt <args> --project-dir <project>`; never raises for a failed dbt (see DbtResult.ok).

        measure_rss: also report the dbt process's peak resident memory (VmHWM from /proc, polled
        until it exits; a forked child's ru_maxrss would also count pages it shared with this
        process). Linux only; elsewhere peak_rss_mb stays None.
        """
        cmd = [DBT, *args, "--project-dir", str(self.project_dir)]
        peak_kib = 0
        # Output to a file, not a pipe: nobody reads a pipe while this polls /proc (it would fill up).
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out:
            proc = subprocess.Popen(cmd, cwd=self.cwd, env=self.env, stdout=out, stderr=subprocess.STDOUT, text=True)
            try:
                started = time.monotonic()
                if measure_rss:
                    status = Path(f"/proc/{proc.pid}/status")
                    while proc.poll() is None:
                        peak_kib = max(peak_kib, _vm_hwm_kib(status))
                        if self.timeout is not None and time.monotonic() - started > self.timeout:
                            raise subprocess.TimeoutExpired(cmd, self.timeout)
                        time.sleep(0.05)
                else:
                    proc.wait(timeout=self.timeout)
            finally:
                if proc.poll() is None:  # a timeout or an interrupt here: leave no dbt behind
                    proc.kill()
                    proc.wait()
            out.seek(0)
            output = out.read()
        results, invocation_id = self._run_results()
        peak = peak_kib / 1024 if measure_rss and peak_kib else None
        return DbtResult(proc.returncode, output, results, invocation_id, peak)

    def run_operation(self, macro: str, args: Mapping[str, Any] | None = None) -> Any:
        """`dbt run-operation <macro> --args <json>`: the value the macro emitted (its last
        `KANON_JSON` line). Raises DbtError when dbt fails or the macro emitted nothing."""
        cmd = ["run-operation", macro]
        if args:
            cmd += ["--args", json.dumps(dict(args))]  # JSON is YAML, which --args takes
        result = self.run(*cmd)
        if not result.ok:
            raise DbtError(result.error(), result)
        values = result.emitted()
        if not values:
            raise DbtError(f"{macro} returned nothing (no {JSON_MARKER.strip()} line in dbt's output)", result)
        return values[-1]

    def _run_results(self) -> tuple[dict[str, dict[str, Any]], str | None]:
        path = self.target_path / "run_results.json"
        if not path.exists():  # dbt deps, or a failure before any node ran, writes none
            return {}, None
        data = json.loads(path.read_text())
        path.unlink()  # a later failing invocation must not be read as this one's results
        out: dict[str, dict[str, Any]] = {}
        for item in data["results"]:
            out[_name(item)] = item
            out[item["unique_id"]] = item
        return out, data["metadata"]["invocation_id"]


def _vm_hwm_kib(status: Path) -> int:
    try:
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):  # the process is gone, or not Linux
        pass
    return 0
