"""The file release's engine room: a working folder holding a DuckDB file and the dbt project of
`records/project/` (real files, copied), where kanon's own macros inspect, plan and release the
loaded table (issue 14, ADR 11). Python loads and exports; the warehouse (DuckDB) does the rest.

    ws = Workspace.create(folder, key_hex=None)
    ws.load(table, config)                 # records_input and records_hierarchy_<n>
    summary = ws.plan(config)              # kanon.kanon_plan_records' summary
    outcome = ws.release(config)           # kanon.release_records through the k_anonymous gate
    released = ws.released_table()         # what the gate published, as text

Every dbt invocation goes through `DbtRunner`, with an environment made here: the inherited one
without any DBT_* or KANON_* variable (a user's DBT_TARGET or KANON_SCHEMA must not redirect the
run), plus the DuckDB path, the profiles folder and, for pseudonyms, the key.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from kanon_tools.dbt_runner import DbtResult, DbtRunner, cache_dir
from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV
from kanon_tools.records.config import Config, Rows, prefix_rows
from kanon_tools.records.files import Table
from kanon_tools.records.loading import load_hierarchy, load_table
from kanon_tools.warehouse import quote_ident

PROJECT = Path(__file__).parent / "project"
# kanon's dbt package, linked as the project's: the copy an installed wheel carries (setup.py),
# else the checkout holding this file (an editable install)
SHIPPED_PACKAGE = Path(__file__).resolve().parents[1] / "dbt_package"
CHECKOUT = Path(__file__).resolve().parents[3]
INPUT = "records_input"
MODEL = "records_release"
SCHEMA = "main"


class EngineError(RuntimeError):
    """dbt or kanon refused the work for a reason of the configuration or the data (exit 2); the
    message is kanon's, which names columns and counts, never a value."""


@dataclass(frozen=True)
class Outcome:
    """A release: whether the gate published it, the receipt kanon.cli_release_receipt read from the
    trail, and kanon.kanon_plan_records' summary of the input (its level-0 risk profile)."""

    released: bool
    release: Mapping[str, Any]
    plan: Mapping[str, Any]


def kanon_package() -> Path:
    """The folder holding kanon's dbt package (its dbt_project.yml): the installed copy, else the
    checkout. EngineError when neither is there (a wheel built without it)."""
    for folder in (SHIPPED_PACKAGE, CHECKOUT):
        if (folder / "dbt_project.yml").is_file() and (folder / "macros").is_dir():
            return folder
    raise EngineError(f"kanon's dbt package is missing: neither {SHIPPED_PACKAGE} nor {CHECKOUT} holds its "
                      "dbt_project.yml; install kanon-tools from a kanon checkout (pip install ./python_helpers)")


def hierarchy_table(index: int) -> str:
    return f"records_hierarchy_{index}"


def hierarchies(table: Table, config: Config | None) -> dict[int, Rows]:
    """Each quasi-identifier's hierarchy rows by its column's position in the configuration: the
    configuration's (inline or from a file), or built from the column's values by its prefix
    (none when every value is empty: the command refuses that column before loading)."""
    out = {}
    for index, column in enumerate(config.columns if config is not None else ()):
        if column.hierarchy is not None:
            out[index] = column.hierarchy
        elif column.prefix is not None:
            position = table.columns.index(column.name)
            out[index] = prefix_rows([row[position] for row in table.rows], column.prefix)
    return out


class Workspace:
    """A working folder: the dbt project, its DuckDB file, and the runner that calls dbt there."""

    def __init__(self, folder: Path, runner: DbtRunner) -> None:
        self.folder = folder
        self.duckdb = folder / "records.duckdb"
        self.runner = runner

    @classmethod
    def create(cls, folder: Path, *, key_hex: str | None = None) -> Workspace:
        folder = folder.resolve()  # dbt runs inside it: a relative path would be read from there
        folder.mkdir(parents=True, exist_ok=True)
        project = folder / "project"
        if project.exists():
            shutil.rmtree(project)
        shutil.copytree(PROJECT, project, ignore=shutil.ignore_patterns("target", "logs", "dbt_packages"))
        # What `dbt deps` does for a local package, without its start-up (seconds on every command).
        (project / "dbt_packages").mkdir()
        (project / "dbt_packages" / "kanon").symlink_to(kanon_package(), target_is_directory=True)
        env = {name: value for name, value in os.environ.items() if not name.startswith(("DBT_", "KANON_"))}
        # relative to the project, where dbt runs: the same profile for every working folder, so
        # that dbt takes the project as parsed by an earlier command (kept in the cache folder)
        env["KANON_RECORDS_DUCKDB"] = "../records.duckdb"
        if key_hex is not None:
            env[DEFAULT_KEY_ENV] = key_hex
        elif DEFAULT_KEY_ENV in os.environ:
            env[DEFAULT_KEY_ENV] = os.environ[DEFAULT_KEY_ENV]
        runner = DbtRunner(project, env=env, profiles_dir=project, target_path=folder / "target",
                           log_path=folder / "logs", timeout=None, parse_cache=cache_dir() / "parses",
                           parse_scope="kanon-records project")
        return cls(folder, runner)

    # --- loading --------------------------------------------------------------------------------

    def load(self, table: Table, config: Config | None,
             built: Mapping[int, Rows] | None = None) -> None:
        """The file's table as records_input (typed by the configuration) and each quasi-identifier's
        hierarchy (`built`, else `hierarchies(table, config)`) as records_hierarchy_<n>, each in
        one statement."""
        types = {c.name: c.type for c in config.columns} if config is not None else {}
        con = duckdb.connect(str(self.duckdb))
        try:
            load_table(con, table, schema=SCHEMA, name=INPUT, types=types)
            for index, rows in (hierarchies(table, config) if built is None else built).items():
                load_hierarchy(con, rows, schema=SCHEMA, name=hierarchy_table(index))
        finally:
            con.close()

    def connect(self, *, read_only: bool = True) -> Any:
        return duckdb.connect(str(self.duckdb), read_only=read_only)

    # --- kanon's macros -----------------------------------------------------------------------------

    def release_vars(self, config: Config | None) -> dict[str, Any]:
        """var('kanon_records'): the relation and the release's settings, each hierarchy named by its table."""
        if config is None:
            return {"relation": INPUT, "k": 2, "columns": {}}
        columns: dict[str, Any] = {}
        for index, column in enumerate(config.columns):
            spec: dict[str, Any] = {"role": column.role}
            if column.hierarchy is not None or column.prefix is not None:
                spec["hierarchy"] = hierarchy_table(index)
            if column.bins is not None:
                spec["bins"] = [list(edges) for edges in column.bins]
            if column.date is not None:
                spec["date"] = list(column.date)
            if column.pseudonym:
                spec["pseudonym"] = True
            columns[column.name] = spec
        return {"relation": INPUT, "k": config.k, "l": config.l, "diversity": config.diversity,
                "max_suppression": config.max_suppression, "suppression_unit": config.suppression_unit,
                "privacy_unit": config.privacy_unit, "loss": config.loss,
                "missing_value_policy": config.missing_value_policy, "shuffle_seed": config.shuffle_seed,
                "columns": columns}

    def operation(self, macro: str, config: Config | None) -> Any:
        """`dbt run-operation <macro>` with var('kanon_records'): the value it emitted."""
        result = self.runner.run("run-operation", macro, "--vars", _vars(self.release_vars(config)))
        if not result.ok or not result.emitted():
            raise EngineError(result.error())
        return result.emitted()[-1]

    def inspect(self) -> Mapping[str, Any]:
        """kanon.kanon_inspect_records on the loaded table (every column as text)."""
        return dict(self.operation("records_cli_inspect", None))

    def plan(self, config: Config) -> Mapping[str, Any]:
        """kanon.kanon_plan_records: lattice, budget, the level-0 risk profile and warnings."""
        return dict(self.operation("records_cli_plan", config))

    def release(self, config: Config) -> Outcome:
        """The release model and kanon's audit models in one dbt run; then, in one more, the plan's
        summary and the release's receipt from the trail. A refusal (the gate's, or the search
        finding no node) is an Outcome with released False; any other failure (kanon refusing the
        configuration) raises EngineError."""
        variables = _vars(self.release_vars(config))
        result = self.runner.run("run", "--select", f"package:kanon,path:models/audit {MODEL}", "--vars", variables)
        if result.invocation_id is None:
            raise EngineError(result.error())
        after = self.runner.run("run-operation", "records_cli_after_release", "--vars", variables)
        emitted = after.emitted()
        if not after.ok or len(emitted) != 2 or emitted[1].get("invocation_id") != result.invocation_id:
            raise EngineError(_node_error(result) if not result.ok else after.error())
        plan, release = dict(emitted[0]), dict(emitted[1])
        return Outcome(release.get("status") == "RELEASED" and result.ok, release, plan)

    def released_table(self) -> Table:
        """What the gate published, every value as text (NULL as None), in the table's column order."""
        con = self.connect()
        try:
            cursor = con.execute(f"select * from {quote_ident(SCHEMA)}.{quote_ident(MODEL)}")
            names = tuple(d[0] for d in cursor.description)
            rows = tuple(tuple(_text(v) for v in row) for row in cursor.fetchall())
        finally:
            con.close()
        return Table(names, rows)


def _node_error(result: DbtResult) -> str:
    """The release model's error message (run_results.json's, past dbt's title line), else dbt's own."""
    message = str((result.results.get(MODEL) or {}).get("message") or "")
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    if len(lines) > 1 and lines[0].endswith(")") and " in model " in lines[0]:
        lines = lines[1:]  # "Compilation Error in model records_release (models/records_release.sql)"
    return lines[0] if lines else result.error()


def _vars(value: Mapping[str, Any]) -> str:
    return json.dumps({"kanon_records": value}, ensure_ascii=False)


def _text(value: Any) -> str | None:
    """A published value as the file writes it: ISO dates, integers as digits, a whole float without '.0'."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    if hasattr(value, "isoformat"):
        return str(value.isoformat())
    return str(value)
