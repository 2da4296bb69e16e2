"""The order the test files start in (support/file_seconds.py): the longest first, by the seconds
the suite measured, and the recorder that measures them, in one process and under pytest-xdist.
No dbt."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, cast

import pytest
from support import TESTS
from support.file_seconds import RECORD_ENV, FileSecondsRecorder, in_start_order, read_seconds


@dataclass(frozen=True)
class Item:
    """What the ordering reads of a pytest item: its file (and, here, a name to see the order by)."""

    path: Path
    name: str


def report(nodeid: str, when: Literal["setup", "call", "teardown"], duration: float) -> pytest.TestReport:
    file = nodeid.split("::")[0]
    return pytest.TestReport(nodeid=nodeid, location=(file, 0, nodeid), keywords={}, outcome="passed",
                             longrepr=None, when=when, duration=duration)


def test_the_start_order_names_files_that_exist() -> None:
    # conftest starts the longest files first; a renamed file would silently lose its place
    assert sorted(name for name in read_seconds() if not (TESTS / name).is_file()) == []


def test_the_longest_files_start_first_and_a_files_tests_stay_together(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    short, long_, many, one = (tests / "a" / "test_short.py", tests / "b" / "test_long.py",
                               tests / "test_unmeasured_many.py", tests / "test_unmeasured_one.py")
    items = [Item(one, "o1"), Item(short, "s1"), Item(long_, "l1"), Item(many, "m1"), Item(short, "s2"),
             Item(many, "m2"), Item(long_, "l2"), Item(many, "m3")]
    in_start_order(items, {"a/test_short.py": 5, "b/test_long.py": 300, "gone/test_removed.py": 900}, tests)
    # measured files by their seconds; the others (0 s) by their number of tests, most first
    assert [item.name for item in items] == ["l1", "l2", "s1", "s2", "m1", "m2", "m3", "o1"]


def test_the_recorder_writes_the_seconds_it_measured(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    for file in ("a/test_one.py", "b/test_two.py", "c/test_kept.py"):
        (tests / file).parent.mkdir(parents=True, exist_ok=True)
        (tests / file).write_text("")
    seconds_file = tmp_path / "file_seconds.json"
    seconds_file.write_text(json.dumps({"note": "earlier", "seconds": {
        "a/test_one.py": 99, "c/test_kept.py": 7, "gone/test_removed.py": 50}}))
    recorder = FileSecondsRecorder(tmp_path, tests, seconds_file)
    for one in (report("tests/a/test_one.py::test_x[duckdb]", "setup", 10.2),
                report("tests/a/test_one.py::test_x[duckdb]", "call", 3.0),
                report("tests/a/test_one.py::test_x[duckdb]", "teardown", 0.4),
                report("tests/a/test_one.py::test_y", "call", 1.0),
                report("tests/b/test_two.py::Test::test_z", "call", 20.6)):
        recorder.pytest_runtest_logreport(one)

    recorder.pytest_sessionfinish(cast(pytest.Session, None), pytest.ExitCode.INTERRUPTED)
    assert json.loads(seconds_file.read_text())["note"] == "earlier"  # a run cut short writes nothing
    recorder.pytest_sessionfinish(cast(pytest.Session, None), pytest.ExitCode.TESTS_FAILED)
    written = json.loads(seconds_file.read_text())
    # measured: setup, call and teardown summed; c kept from before; a file gone is dropped
    assert written["seconds"] == {"b/test_two.py": 21, "a/test_one.py": 15, "c/test_kept.py": 7}
    assert list(written["seconds"]) == ["b/test_two.py", "a/test_one.py", "c/test_kept.py"]
    assert "make test-seconds" in written["note"]
    assert read_seconds(seconds_file) == {"b/test_two.py": 21.0, "a/test_one.py": 15.0, "c/test_kept.py": 7.0}


def test_under_xdist_the_controller_records_every_workers_files(tmp_path: Path) -> None:
    """A run of two files on two workers, its conftest registering the recorder as tests/conftest.py
    does: the table holds both files, each with its own seconds, written once (by the controller)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    tests = tmp_path / "tests"
    (tests / "slow").mkdir(parents=True)
    (tests / "quick").mkdir()
    (tests / "conftest.py").write_text(textwrap.dedent("""
        from pathlib import Path

        from support.file_seconds import register_recorder


        def pytest_configure(config):
            register_recorder(config, Path(__file__).parent, Path(__file__).parent / "seconds.json")
        """))
    (tests / "slow" / "test_slow.py").write_text(textwrap.dedent("""
        import time

        import pytest


        @pytest.fixture(scope="module")
        def built():
            time.sleep(1.2)


        def test_one(built):
            time.sleep(0.5)


        def test_two(built):
            time.sleep(0.5)
        """))
    (tests / "quick" / "test_quick.py").write_text("def test_quick():\n    pass\n")
    # xdist alone of the installed plugins: the others cost seconds of start-up in every process
    env = dict(os.environ, PYTHONPATH=str(TESTS), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **{RECORD_ENV: "1"})
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "xdist", "-n", "2", "--dist", "loadfile",
                          "-p", "no:cacheprovider", "-q", "tests"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    seconds = json.loads((tests / "seconds.json").read_text())["seconds"]
    assert list(seconds) == ["slow/test_slow.py", "quick/test_quick.py"]
    assert seconds["slow/test_slow.py"] >= 2 > seconds["quick/test_quick.py"]
