"""kanon_tools.dbt_runner: dbt in this process behaves as a dbt process does (ADR 14), and the
`dbt` tier is enforced (a test without the marker cannot start dbt)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from kanon_tools.dbt_runner import DbtRunner

PROJECT = {
    "dbt_project.yml": "name: runner_probe\nversion: '1.0'\nconfig-version: 2\nprofile: runner_probe\n",
    "profiles.yml": (
        "runner_probe:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n"
        "      path: \"{{ env_var('PROBE_DUCKDB') }}\"\n      threads: 1\n"
    ),
    # what the environment held, as dbt saw it, and a macro's print() (the KANON_JSON hand-back)
    "models/seen.sql": "select '{{ env_var('PROBE_WORD', 'unset') }}' as word, {{ var('n', 0) }} as n",
    "models/broken.sql": "select * from a_table_that_is_not_there",
    "macros/say.sql": "{% macro say(word) %}{{ print('KANON_JSON ' ~ tojson({'said': word})) }}{% endmacro %}",
}


@pytest.fixture
def probe(tmp_path: Path) -> Path:
    for name, text in PROJECT.items():
        (tmp_path / "project" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "project" / name).write_text(text)
    return tmp_path


def _runner(probe: Path, *, process: bool = False, **env: str) -> DbtRunner:
    base = {key: value for key, value in os.environ.items() if not key.startswith(("DBT_", "PROBE_"))}
    base.update(PROBE_DUCKDB=str(probe / "probe.duckdb"), **env)
    return DbtRunner(probe / "project", env=base, profiles_dir=probe / "project", target_path=probe / "target",
                     log_path=probe / "logs", process=process)


def test_a_test_without_the_dbt_marker_cannot_start_dbt(probe: Path) -> None:
    # conftest set KANON_NO_DBT for this (unmarked) test: in this process and in a command's
    assert os.environ.get("KANON_NO_DBT", "").endswith("test_a_test_without_the_dbt_marker_cannot_start_dbt")
    with pytest.raises(RuntimeError, match="without the `dbt` marker"):
        _runner(probe).run("build")
    with pytest.raises(RuntimeError, match="without the `dbt` marker"):
        _runner(probe, process=True).run("build")
    started = subprocess.run([sys.executable, "-c", "from kanon_tools.dbt_runner import DbtRunner; "
                              f"DbtRunner({str(probe / 'project')!r}).run('build')"],
                             capture_output=True, text=True, env=dict(os.environ), timeout=120)
    assert started.returncode != 0 and "without the `dbt` marker" in started.stderr
    assert not (probe / "probe.duckdb").exists()


@pytest.mark.dbt
@pytest.mark.parametrize("process", [False, True], ids=["in_process", "process"])
def test_in_process_dbt_answers_as_a_dbt_process_does(probe: Path, process: bool) -> None:
    before_env, before_cwd = dict(os.environ), Path.cwd()
    runner = _runner(probe, process=process, PROBE_WORD="given")
    assert "PROBE_WORD" not in os.environ

    built = runner.run("run", "--select", "seen", "--vars", "{n: 7}")
    assert (built.returncode, built.status("seen")) == (0, "success")
    failed = runner.run("run", "--select", "broken")
    assert (failed.returncode, failed.status("broken")) == (1, "error")
    assert "a_table_that_is_not_there" in failed.output
    unknown = runner.run("run", "--select", "seen", "--vars", "{not yaml")
    assert unknown.returncode == 2 and unknown.results == {}
    assert runner.run_operation("say", {"word": "back"}) == {"said": "back"}
    if not process:  # in this process the runner writes run_results.json: never a parse's manifest
        parsed = runner.run("parse")
        assert (parsed.returncode, parsed.results) == (0, {})
    # a dbt process writes manifest.json; in this process it is left out unless asked for
    assert (probe / "target" / "manifest.json").exists() == process

    # the environment and the working directory were the runner's for the invocation only
    assert dict(os.environ) == before_env and Path.cwd() == before_cwd
    # and the database is closed after it: another connection may write to the file
    with duckdb.connect(str(probe / "probe.duckdb")) as con:
        assert con.execute("select word, n from seen").fetchall() == [("given", 7)]
        con.execute("create table written_between as select 1 as x")
    again = runner.run("run", "--select", "seen", "--vars", "{n: 8}")
    assert again.ok
    with duckdb.connect(str(probe / "probe.duckdb"), read_only=True) as con:
        assert con.execute("select n from seen").fetchall() == [(8,)]
        assert con.execute("select x from written_between").fetchall() == [(1,)]


@pytest.mark.dbt
def test_a_parse_is_kept_per_set_of_vars_and_put_back(probe: Path) -> None:
    runner = _runner(probe)
    assert runner.run("run", "--select", "seen", "--vars", "{n: 1}").ok
    assert runner.run("run", "--select", "seen", "--vars", "{n: 2}").ok
    kept = sorted(runner.parse_cache.glob("*.msgpack"))
    assert len(kept) == 2  # one per set of vars
    # a kept parse is put back: dbt reuses it instead of parsing the project again
    third = runner.run("--debug", "run", "--select", "seen", "--vars", "{n: 1}")
    assert third.ok and "Partial parsing enabled" in third.output
    assert "Unable to do partial parsing" not in third.output
    # a different environment that picks a profile or warehouse is kept apart
    other = _runner(probe, KANON_SCHEMA="elsewhere")
    assert other.run("run", "--select", "seen", "--vars", "{n: 1}").ok
    assert len(sorted(runner.parse_cache.glob("*.msgpack"))) == 2 + 1


@pytest.mark.dbt
def test_a_scratch_copy_of_a_project_reuses_the_parse_of_an_earlier_copy(probe: Path) -> None:
    # kanon-records copies its project, profiles.yml inside, to a new folder for every command
    def copy(name: str) -> DbtRunner:
        project = probe / name / "project"
        shutil.copytree(probe / "project", project)
        env = {key: value for key, value in os.environ.items() if not key.startswith(("DBT_", "PROBE_"))}
        env["PROBE_DUCKDB"] = str(probe / "probe.duckdb")
        return DbtRunner(project, env=env, profiles_dir=project, target_path=probe / name / "target",
                         log_path=probe / name / "logs", parse_cache=probe / "parses", parse_scope="probe copies")

    assert copy("first").run("run", "--select", "seen").ok
    second = copy("second").run("--debug", "run", "--select", "seen")
    assert second.ok and "Partial parsing enabled" in second.output
    assert "Unable to do partial parsing" not in second.output
