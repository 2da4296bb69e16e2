"""Connections to the warehouses named in the repo's profiles.yml, from the same variables.

DuckDB: KANON_DUCKDB_PATH (default kanon.duckdb), schema KANON_SCHEMA (default main). A DuckDB
file has no grants: whoever can read the file can read everything in it.
Postgres: the libpq variables PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE (defaults
127.0.0.1, 5432, root, '', test), schema KANON_SCHEMA (default kanon).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
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
