"""Where a test builds: a DuckDB file or a Postgres schema prefix of its own (Warehouse), and what
tests need of Postgres besides (whether it answers, roles made for one test).

Every dbt-level test runs on both warehouses through the `warehouse_kind` fixture (tests/conftest.py).
Postgres is reached through the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE).
When it cannot be reached, the Postgres half fails under CI=true and is skipped, with one clear
reason, anywhere else.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.pseudonym_env import NOISE_KEY_ENV, pseudonym_env
from kanon_tools.warehouse import Target, postgres_params

from support import IN_CI, ROOT

WAREHOUSES = ("duckdb", "postgres")


def postgres_unavailable_reason() -> str | None:
    """None when Postgres answers, else a one-line reason."""
    try:
        import psycopg2

        psycopg2.connect(connect_timeout=3, **postgres_params()).close()
        return None
    except Exception as exc:  # any failure to connect means "not available"
        params = postgres_params()
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return f"Postgres not reachable at {params['host']}:{params['port']} ({first_line})"


@dataclass
class Warehouse:
    """One isolated place to build into: a DuckDB file, or a Postgres schema prefix."""

    kind: str
    schema: str
    workdir: Path
    duckdb_path: Path = field(init=False)

    def __post_init__(self) -> None:
        # The file name must differ from the schema name: DuckDB cannot bind a view whose catalog
        # (the file stem) and schema share a name ("Ambiguous reference to catalog").
        self.duckdb_path = self.workdir / f"wh_{self.schema}.duckdb"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DBT_PROFILES_DIR=str(ROOT),
            KANON_TARGET=self.kind,
            KANON_SCHEMA=self.schema,
            KANON_DUCKDB_PATH=str(self.duckdb_path),
            DBT_SEND_ANONYMOUS_USAGE_STATS="false",
        )
        # Postgres reads the noise key (the example's noisy twin) from a setting PGOPTIONS gives
        return pseudonym_env(env, NOISE_KEY_ENV) if self.kind == "postgres" else env

    def connect(self) -> Any:
        if self.kind == "duckdb":
            import duckdb

            return duckdb.connect(str(self.duckdb_path))
        import psycopg2

        conn = psycopg2.connect(**postgres_params())
        conn.autocommit = True
        return conn

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(sql)
            return [tuple(row) for row in cur.fetchall()]
        finally:
            conn.close()

    def execute(self, sql: str) -> None:
        conn = self.connect()
        try:
            conn.cursor().execute(sql)
            if self.kind == "duckdb":
                conn.commit()
        finally:
            conn.close()

    def relation(self, name: str, schema_suffix: str | None = None) -> str:
        return Target(self.kind, self.schema).relation(name, schema_suffix)

    def comment(self, name: str) -> str | None:
        """The comment on a model's relation (what kanon notes there for readers of a noisy mart)."""
        if self.kind == "duckdb":
            rows = self.query(f"select comment from duckdb_tables() where schema_name = {_pg_literal(self.schema)} "
                              f"and table_name = {_pg_literal(name)}")
        else:
            rows = self.query(f"select obj_description(to_regclass({_pg_literal(self.relation(name))}), 'pg_class')")
        return rows[0][0] if rows else None

    def drop_everything(self) -> None:
        if self.kind == "duckdb":
            self.duckdb_path.unlink(missing_ok=True)
            Path(f"{self.duckdb_path}.wal").unlink(missing_ok=True)
            return
        rows = self.query(
            f"select nspname from pg_namespace where nspname = {_pg_literal(self.schema)} "
            f"or nspname like {_pg_literal(self.schema + chr(92) + '_%')}"
        )
        for (name,) in rows:
            self.execute(f'drop schema if exists "{name}" cascade')


def _pg_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def require_postgres() -> None:
    """For tests that only make sense on Postgres (roles, grants): fail under CI, else skip, when it is down."""
    reason = postgres_unavailable_reason()
    if reason:
        if IN_CI:
            pytest.fail(f"{reason}; CI requires the Postgres half of the suite", pytrace=False)
        pytest.skip(f"{reason}: skipping the Postgres half of the suite")


@contextlib.contextmanager
def postgres_role(wh: Warehouse, name: str) -> Iterator[str]:
    """A Postgres role <schema>_<name> made for a test, and everything it owns dropped after."""
    role = f"{wh.schema}_{name}"
    wh.execute(f'drop role if exists "{role}"')
    wh.execute(f'create role "{role}"')
    try:
        yield role
    finally:
        wh.execute(f'drop owned by "{role}"')
        wh.execute(f'drop role if exists "{role}"')


def role_can_select(wh: Warehouse, role: str, relation: str) -> bool:
    """Whether `role` may select from `relation` (Postgres): False on a permission denied, on the
    table or on its schema; any other error is raised."""
    import psycopg2

    conn = wh.connect()
    try:
        cur = conn.cursor()
        cur.execute(f'set role "{role}"')
        try:
            cur.execute(f"select count(*) from {relation}")
        except psycopg2.errors.InsufficientPrivilege:
            return False
        return True
    finally:
        conn.close()


def mart(wh: Warehouse, name: str) -> list[tuple[Any, ...]]:
    """Every row of a model's relation, in a fixed order (by repr: rows may mix types and NULLs)."""
    return sorted((tuple(row) for row in wh.query(f"select * from {wh.relation(name)}")), key=repr)
