"""Connections to the warehouses named in the repo's profiles.yml, from the same variables; and
`profile_target`, which reads any dbt project's profile the way dbt does, without connecting.

DuckDB: KANON_DUCKDB_PATH (default kanon.duckdb), schema KANON_SCHEMA (default main). A DuckDB
file has no grants: whoever can read the file can read everything in it.
Postgres: the libpq variables PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE (defaults
127.0.0.1, 5432, root, '', test), schema KANON_SCHEMA (default kanon).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TARGETS = ("duckdb", "postgres")


@dataclass(frozen=True)
class Target:
    kind: str
    schema: str

    def relation(self, name: str, custom_schema: str | None = None) -> str:
        """A quoted relation name, following dbt's default <target schema>_<custom schema>."""
        schema = f"{self.schema}_{custom_schema}" if custom_schema else self.schema
        return f'{quote_ident(schema)}.{quote_ident(name)}'


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def target(kind: str) -> Target:
    if kind not in TARGETS:
        raise ValueError(f"unknown target {kind!r}; expected one of {', '.join(TARGETS)}")
    default_schema = "main" if kind == "duckdb" else "kanon"
    return Target(kind, os.environ.get("KANON_SCHEMA", default_schema))


def postgres_params() -> dict[str, Any]:
    """libpq variables, with the same defaults as profiles.yml."""
    return {
        "host": os.environ.get("PGHOST", "127.0.0.1"),
        "port": int(os.environ.get("PGPORT", "5432")),
        "user": os.environ.get("PGUSER", "root"),
        "password": os.environ.get("PGPASSWORD", ""),
        "dbname": os.environ.get("PGDATABASE", "test"),
    }


class WarehouseError(Exception):
    """A warehouse that cannot be opened as asked, said in one line."""


def duckdb_path() -> str:
    return os.environ.get("KANON_DUCKDB_PATH", "kanon.duckdb")


def database_errors(kind: str) -> tuple[type[Exception], ...]:
    """The exception classes the target's driver raises for a failed connection or statement."""
    if kind == "duckdb":
        import duckdb

        return (duckdb.Error,)
    if kind == "postgres":
        import psycopg2

        return (psycopg2.Error,)
    raise ValueError(f"unknown target {kind!r}")


def connect(kind: str, read_only: bool = False) -> Any:
    """A DB-API connection to the target's warehouse.

    read_only: for tools that only look. On DuckDB a missing file is refused with a
    WarehouseError (a read-write connect would create an empty database there); on Postgres the
    session's transactions are read-only.
    """
    if kind == "duckdb":
        import duckdb

        path = duckdb_path()
        if read_only and not os.path.isfile(path):
            raise WarehouseError(f"no DuckDB database at {os.path.abspath(path)} (KANON_DUCKDB_PATH): "
                                 "build the project first, or point KANON_DUCKDB_PATH at its file")
        return duckdb.connect(path, read_only=read_only)
    if kind == "postgres":
        import psycopg2

        conn = psycopg2.connect(**postgres_params())
        conn.autocommit = True
        if read_only:
            conn.set_session(readonly=True)
        return conn
    raise ValueError(f"unknown target {kind!r}")


def fetch(conn: Any, sql: str) -> tuple[list[str], list[Sequence[Any]]]:
    cur = conn.cursor()
    cur.execute(sql)
    columns = [d[0] for d in cur.description]
    return columns, cur.fetchall()


@dataclass(frozen=True)
class ProfileTarget:
    """The target a dbt invocation would use: its name, adapter type, and (DuckDB) database path."""

    name: str
    type: str
    path: str | None

    def missing_duckdb_file(self, cwd: Path) -> Path | None:
        """The DuckDB file this target names, when it is a local file that does not exist (a dbt
        connection would create it); None otherwise (Postgres, in-memory, MotherDuck, present)."""
        if self.type != "duckdb" or not self.path or self.path == ":memory:" or ":" in self.path.split("/")[0]:
            return None
        path = cwd / Path(self.path).expanduser()
        return None if path.exists() else path.resolve()


def profiles_dir_for(project_dir: Path) -> Path:
    """Where dbt looks for profiles.yml: DBT_PROFILES_DIR, else the project directory when it holds
    one, else ~/.dbt."""
    if os.environ.get("DBT_PROFILES_DIR"):
        return Path(os.environ["DBT_PROFILES_DIR"])
    if (project_dir / "profiles.yml").is_file():
        return project_dir
    return Path.home() / ".dbt"


def profile_target(project_dir: Path, profiles_dir: Path, target: str | None = None) -> ProfileTarget:
    """The project's profile target, rendered by dbt's own code (env_var() included) in this
    process, with no connection made. Raises WarehouseError, in one line, when it cannot be read."""
    from dbt.clients.yaml_helper import load_yaml_text
    from dbt_common.exceptions import DbtBaseException

    try:
        project = load_yaml_text((project_dir / "dbt_project.yml").read_text()) or {}
    except (OSError, DbtBaseException) as exc:
        raise WarehouseError(f"cannot read {project_dir / 'dbt_project.yml'}: {_first_line(exc)}") from None
    if not (profiles_dir / "profiles.yml").is_file():
        raise WarehouseError(f"no profiles.yml in {profiles_dir.resolve()} "
                             "(give --profiles-dir or set DBT_PROFILES_DIR)")
    from argparse import Namespace

    from dbt.config.profile import Profile, read_profile
    from dbt.config.renderer import ProfileRenderer
    from dbt.flags import set_from_args
    from dbt_common.context import set_invocation_context

    # what a dbt invocation sets up before it renders profiles.yml (env_var reads the context)
    set_invocation_context(dict(os.environ))
    set_from_args(Namespace(), {})
    try:
        renderer = ProfileRenderer({})
        name = renderer.render_value(project.get("profile")) if project.get("profile") else None
        if not name:
            raise WarehouseError(f"{project_dir / 'dbt_project.yml'} names no profile")
        profile = Profile.from_raw_profiles(read_profile(str(profiles_dir)), str(name), renderer,
                                            target_override=target)
    except DbtBaseException as exc:
        where = profiles_dir / "profiles.yml"
        raise WarehouseError(f"cannot read the profile in {where}: {_first_line(exc)}") from None
    credentials = profile.credentials
    return ProfileTarget(profile.target_name, credentials.type, getattr(credentials, "path", None))


def _first_line(exc: BaseException) -> str:
    """dbt's messages start with a title line ('Runtime Error'): the first line that says something."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    lines = [line for line in lines if not line.endswith("Error")] or lines
    return lines[0] if lines else type(exc).__name__
