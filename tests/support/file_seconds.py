"""The order the test files start in under `make test`, from the seconds each took in a whole run.

`make test` gives pytest-xdist's workers one test file at a time (--dist loadfile): started longest
first, they finish together (each takes the next file as it starts its last one). xdist's own
order, files with the most tests first, started the Spark module last and then left one worker
70 s behind the other.

The seconds are the suite's own measurement, kept in file_seconds.json beside this module: a test
file's path below tests/ -> the seconds of its tests' setup, call and teardown in a whole run,
its module fixtures included. `make test-seconds` runs `make test` with KANON_RECORD_FILE_SECONDS=1,
and FileSecondsRecorder writes what that run measured. A file not in the table counts 0 seconds.
"""

from __future__ import annotations

import datetime
import json
import os
from collections import Counter, defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, TypeVar

import pytest

from support import TESTS

SECONDS_FILE = Path(__file__).with_name("file_seconds.json")
RECORD_ENV = "KANON_RECORD_FILE_SECONDS"


class _InAFile(Protocol):
    @property
    def path(self) -> Path: ...


Item = TypeVar("Item", bound=_InAFile)


def file_key(path: Path, tests: Path = TESTS) -> str:
    """A test file's name in the table: its path below `tests`, with forward slashes."""
    try:
        return path.relative_to(tests).as_posix()
    except ValueError:  # outside tests/ (not a file of this suite): never in the table
        return path.as_posix()


def read_seconds(seconds_file: Path = SECONDS_FILE) -> dict[str, float]:
    """The table: a test file's name -> its seconds in the run that measured it."""
    seconds = json.loads(seconds_file.read_text(encoding="utf-8"))["seconds"]
    return {str(name): float(value) for name, value in seconds.items()}


def in_start_order(items: list[Item], seconds: Mapping[str, float], tests: Path = TESTS) -> None:
    """Sorts `items` in place: the files by their seconds, longest first, then by their number of
    tests, most first (xdist's own order); a file's tests together, in their order."""
    files = [file_key(item.path, tests) for item in items]
    tests_in = Counter(files)
    first_seen: dict[str, int] = {}
    for at, file in enumerate(files):
        first_seen.setdefault(file, at)
    order = sorted(range(len(items)), key=lambda at: (-seconds.get(files[at], 0), -tests_in[files[at]],
                                                      first_seen[files[at]]))  # stable: a file's own order kept
    items[:] = [items[at] for at in order]


class FileSecondsRecorder:
    """A pytest plugin that sums each test file's report durations (setup, call and teardown) and,
    when the session ends, writes them to the table. Registered in the process that reports the
    session (`register_recorder`): under xdist that is the controller, which receives every
    worker's reports. A file this run did not measure keeps its seconds; a file that no longer
    exists leaves the table."""

    def __init__(self, rootpath: Path, tests: Path = TESTS, seconds_file: Path = SECONDS_FILE) -> None:
        self.rootpath = rootpath
        self.tests = tests
        self.seconds_file = seconds_file
        self.measured: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        path = self.rootpath / report.nodeid.split("::", 1)[0]  # node ids are relative to the rootdir
        self.measured[file_key(path, self.tests)] += report.duration

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if exitstatus in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):  # not a run cut short
            self.write()

    def write(self) -> dict[str, int]:
        """Writes the table, longest first, and returns its seconds."""
        seconds = read_seconds(self.seconds_file) if self.seconds_file.exists() else {}
        seconds.update(self.measured)
        kept = {file: round(value) for file, value in seconds.items() if (self.tests / file).is_file()}
        longest_first = dict(sorted(kept.items(), key=lambda entry: (-entry[1], entry[0])))
        note = (f"Seconds per test file (setup, call and teardown of its tests, summed), measured by a run "
                f"of the suite on {datetime.date.today().isoformat()} (tests/support/file_seconds.py); "
                f"files that run did not measure keep earlier seconds. Refresh: make test-seconds.")
        self.seconds_file.write_text(json.dumps({"note": note, "seconds": longest_first}, indent=2,
                                                ensure_ascii=False) + "\n", encoding="utf-8")
        return longest_first


def register_recorder(config: pytest.Config, tests: Path = TESTS, seconds_file: Path = SECONDS_FILE) -> None:
    """Records this run's seconds when KANON_RECORD_FILE_SECONDS=1, in the process that sees every
    report: not in an xdist worker (whose reports reach the controller)."""
    if os.environ.get(RECORD_ENV) == "1" and not hasattr(config, "workerinput"):
        config.pluginmanager.register(FileSecondsRecorder(config.rootpath, tests, seconds_file),
                                      "kanon-file-seconds")
