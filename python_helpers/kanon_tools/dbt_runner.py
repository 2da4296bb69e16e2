"""The one way Python calls dbt: the tests, the benchmark and the CLI all go through `DbtRunner`.

dbt runs in this process by default, through dbt's programmatic entry point (`dbtRunner`, which
dbt's own adapter tests drive the same way): a dbt process costs seconds of Python start,
imports and parsing before any SQL, and a Spark one a JVM and a metastore. What an invocation
needs is given, not inherited from where Python happens to run: the project directory, the
environment (profiles.yml reads it), where dbt writes its artifacts (target path) and its log
(log path). ADR 14 says what in-process costs and how it is kept apart:

- one invocation at a time (a lock): dbt's flags, its event logger and its adapters are global;
- the environment is exactly the one given, for the invocation only (os.environ is swapped and
  restored), and so is the working directory;
- stdout and stderr are captured for the invocation (dbt's console log and macros' `print()`);
- dbt-duckdb keeps its database open between invocations; it is closed after each one, so that
  the file can be read by others and opened by the next invocation with another configuration.

A process is used where a process boundary is the point: `process=True` (a test that kills dbt,
a CLI run as a user runs it), `measure_rss` (the benchmark measures the dbt process's own
memory), and everywhere when the environment variable KANON_DBT_PROCESS=1 is set.

    runner = DbtRunner(project_dir, env=env, target_path=tmp / "target", log_path=tmp / "logs")
    result = runner.run("build", "--select", "my_model")      # DbtResult; result.ok, .results
    value = runner.run_operation("kanon.cli_audit_log", {})   # what the macro emitted as JSON

A macro hands a value back by printing one line `KANON_JSON <json>` (`kanon._cli_emit(value)`
does it): dbt's `print()` reaches stdout unformatted, even under --quiet, where `log()` would
prefix a timestamp and `--log-format json` would wrap it.

The test suite forbids dbt in tests not marked `dbt` by setting KANON_NO_DBT (tests/conftest.py):
any runner, in this process or in a CLI process started by the test, then refuses to start.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DBT = str(Path(sys.executable).parent / "dbt")
JSON_MARKER = "KANON_JSON "
# dbt's flags, event logger and adapters are global to the process: one invocation at a time
_IN_PROCESS = threading.Lock()
# dbt colours its log lines and prefixes them with a time even when stdout is not a terminal.
ANSI = re.compile(r"\x1b\[[0-9;]*m")
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
        lines = [_TIMESTAMP.sub("", ANSI.sub("", line)).rstrip() for line in self.output.splitlines()]
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
            text = ANSI.sub("", line)
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
    timeout: seconds before a dbt process is killed and TimeoutExpired raised; None for no limit
    (an invocation in this process is not timed). process: run dbt as a process of its own.
    parse_cache: where to keep dbt's parsed project between runners (see _saved_parse); default
    beside the target path, for this runner's invocations only. parse_scope: what a kept parse
    is for (default the project's path; the same name for copies of one project, which dbt
    accepts when their profile is the same: a relative DuckDB path, say). artifacts: in this
    process, also write manifest.json (dbt writes it twice an invocation, a quarter of a second
    for the integration project; nothing of kanon's reads it); run_results.json is always written.
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
        process: bool = False,
        parse_cache: Path | None = None,
        parse_scope: str | None = None,
        artifacts: bool = False,
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
        self.process = process or os.environ.get("KANON_DBT_PROCESS") == "1"
        self.parse_cache = Path(parse_cache) if parse_cache is not None else self.target_path / ".kanon_parses"
        self.parse_scope = parse_scope or str(self.project_dir.resolve())
        self.artifacts = artifacts

    def run(self, *args: str, measure_rss: bool = False) -> DbtResult:
        """`dbt <args> --project-dir <project>`; never raises for a failed dbt (see DbtResult.ok).

        measure_rss: also report the dbt process's peak resident memory (run_process), so dbt runs
        as a process. Linux only; elsewhere peak_rss_mb stays None.
        """
        forbidden = os.environ.get("KANON_NO_DBT") or self.env.get("KANON_NO_DBT")
        if forbidden:
            raise RuntimeError(f"dbt started by a test without the `dbt` marker ({forbidden}): mark it "
                               "@pytest.mark.dbt, or keep it free of dbt")
        if not (self.process or measure_rss):
            return self._run_in_process(args)
        cmd = [DBT, *args, "--project-dir", str(self.project_dir)]
        finished = run_process(cmd, cwd=self.cwd, env=self.env, timeout=self.timeout, measure_rss=measure_rss)
        results, invocation_id = self._run_results()
        return DbtResult(finished.returncode, finished.output, results, invocation_id, finished.peak_rss_mb)

    def _run_in_process(self, args: tuple[str, ...]) -> DbtResult:
        """dbt's programmatic entry point in this process, with this runner's environment, working
        directory and output for the invocation only; the exit code is the CLI's (0 done, 1 a node
        failed, 2 dbt could not run)."""
        from dbt.cli.main import dbtRunner  # imported on first use: about a second

        output = io.StringIO()
        saved = self._saved_parse(args)
        env = dict(self.env)
        if not self.artifacts:  # no manifest.json; run_results.json is written below
            env.setdefault("DBT_WRITE_JSON", "false")
        with _IN_PROCESS, swapped_environment(env), contextlib.chdir(self.cwd), \
                contextlib.redirect_stdout(output), contextlib.redirect_stderr(output):
            try:
                saved.restore()
                outcome = dbtRunner().invoke([*args, "--project-dir", str(self.project_dir)])
                result: Any = outcome.result  # run and run-operation results can write themselves
                # (a parse's Manifest can too, but it is no run_results.json)
                if env.get("DBT_WRITE_JSON") == "false" and hasattr(result, "write") and hasattr(result, "results"):
                    result.write(str(self.target_path / "run_results.json"))
            finally:
                _close_duckdb()
                saved.keep()
        text = output.getvalue()
        if outcome.exception is not None and str(outcome.exception) not in text:
            text += "".join(traceback.format_exception_only(outcome.exception))
        code = 0 if outcome.success else (2 if outcome.exception is not None else 1)
        results, invocation_id = self._run_results()
        return DbtResult(code, text, results, invocation_id)

    def _saved_parse(self, args: tuple[str, ...]) -> _SavedParse:
        """dbt keeps one parsed project (target/partial_parse.msgpack) and parses it all again
        when the vars or the profile differ from the last invocation's, or when the target path is
        new (a CLI's scratch folder): seconds of Jinja every time. So one saved parse is kept per
        project, set of vars and environment, in parse_cache, and put back before an invocation
        with that set (dbt still checks it, and parses in full whatever it cannot use)."""
        given = [args[at + 1] for at, arg in enumerate(args[:-1]) if arg == "--vars"]
        # the environment that selects a profile and warehouse (a wrong pick costs a full parse)
        # (never a secret, not even hashed: a pseudonym key does not change what dbt parses)
        chosen = sorted((name, value) for name, value in self.env.items() if name.startswith(("DBT_", "KANON_", "PG"))
                        and name not in ("DBT_TARGET_PATH", "DBT_LOG_PATH", "PGOPTIONS", "PGPASSWORD")
                        and not any(word in name for word in ("KEY", "SECRET", "TOKEN", "PASSWORD")))
        # profiles.yml inside the project is named relative to it: a command's scratch copy of a
        # project (kanon-records) holds the same profiles.yml in a new folder every time
        chosen = [(name, _inside(value, self.project_dir)) if name == "DBT_PROFILES_DIR" else (name, value)
                  for name, value in chosen]
        key = hashlib.sha256(json.dumps([self.parse_scope, given, chosen]).encode()).hexdigest()[:24]
        return _SavedParse(self.target_path / "partial_parse.msgpack", self.parse_cache / f"{key}.msgpack")

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


@dataclass(frozen=True)
class _SavedParse:
    """dbt's saved parse (`live`) and a copy kept for one set of vars and environment (`kept`)."""

    live: Path
    kept: Path

    def restore(self) -> None:
        if self.kept.exists():
            self.live.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(self.kept, self.live)

    def keep(self) -> None:
        if self.live.exists():  # written whole, then renamed: another process may read the cache
            self.kept.parent.mkdir(parents=True, exist_ok=True)
            partial = self.kept.with_name(f"{self.kept.name}.{os.getpid()}")
            shutil.copyfile(self.live, partial)
            partial.replace(self.kept)


def _inside(path: str, project_dir: Path) -> str:
    """`path` relative to the project when it lies inside it, else as given."""
    try:
        return str(Path(path).resolve().relative_to(project_dir.resolve()))
    except ValueError:
        return path


@dataclass(frozen=True)
class Finished:
    """A process that ran to its end: exit code, everything it printed, its wall seconds, and its
    peak resident memory in MB (None unless measured, or off Linux)."""

    returncode: int
    output: str
    seconds: float
    peak_rss_mb: float | None


def run_process(cmd: list[str], *, cwd: Path, env: Mapping[str, str], timeout: float | None = None,
                measure_rss: bool = False) -> Finished:
    """Run `cmd` to its end, output and errors together. measure_rss: its peak resident memory
    (VmHWM from /proc, polled until it exits; a forked child's ru_maxrss would also count pages it
    shared with this process). A timeout kills it and raises TimeoutExpired."""
    peak_kib = 0
    # Output to a file, not a pipe: nobody reads a pipe while this polls /proc (it would fill up).
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out:
        started = time.monotonic()
        proc = subprocess.Popen(cmd, cwd=cwd, env=dict(env), stdout=out, stderr=subprocess.STDOUT, text=True)
        try:
            if measure_rss:
                status = Path(f"/proc/{proc.pid}/status")
                while proc.poll() is None:
                    peak_kib = max(peak_kib, _vm_hwm_kib(status))
                    if timeout is not None and time.monotonic() - started > timeout:
                        raise subprocess.TimeoutExpired(cmd, timeout)
                    time.sleep(0.05)
            else:
                proc.wait(timeout=timeout)
        finally:
            if proc.poll() is None:  # a timeout or an interrupt here: leave nothing behind
                proc.kill()
                proc.wait()
        seconds = time.monotonic() - started
        out.seek(0)
        output = out.read()
    return Finished(proc.returncode, output, seconds, peak_kib / 1024 if measure_rss and peak_kib else None)


def cache_dir() -> Path:
    """Where kanon's commands keep what they may reuse (dbt's parsed projects): KANON_CACHE_DIR,
    else $XDG_CACHE_HOME/kanon, else ~/.cache/kanon. Deleting it only costs the next run time."""
    if os.environ.get("KANON_CACHE_DIR"):
        return Path(os.environ["KANON_CACHE_DIR"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kanon"


@contextlib.contextmanager
def swapped_environment(env: Mapping[str, str]) -> Iterator[None]:
    """os.environ is `env` inside, and what it was after (dbt and profiles.yml read it)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _close_duckdb() -> None:
    """dbt-duckdb keeps one database open for the process (its connection manager's class-level
    environment) until the credentials change: close it after each invocation, so that the file is
    free for other readers and the next invocation opens it with its own configuration."""
    manager = sys.modules.get("dbt.adapters.duckdb.connections")
    if manager is None:
        return
    cls = manager.DuckDBConnectionManager
    with cls._LOCK:
        if cls._ENV is not None:
            with contextlib.suppress(Exception):  # closing what is already gone is fine
                cls._ENV.close()
            cls._ENV = None


def _vm_hwm_kib(status: Path) -> int:
    try:
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError):  # the process is gone, or not Linux
        pass
    return 0
