"""A throwaway host project: a dbt project that installs kanon from this checkout through
packages.yml, with seeds and two k_anonymous marts calling kanon.release_counts, on a warehouse of
its own (`Host`), and what the host tests ask of its audit trail. tests/host/ builds these."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kanon_tools.dbt_runner import DbtResult

from support import ROOT
from support.projects import DbtProject
from support.warehouses import Warehouse

AUDIT_TABLES = ("kanon_audit_groups", "kanon_audit_hierarchies", "kanon_audit_releases")
MARTS = ("host_mart_a", "host_mart_b")
COMMENT = "kanon audit trail"  # the start of the comment kanon gives a trail table it created

EVENTS = "person,age_band\n" + "".join(
    f"p{i},{band}\n" for i, band in enumerate(["13-17", "13-17", "18-24", "25-44", "25-44", "25-44", "45-64", "65+"])
)
HIERARCHY = "level_0,level_1,level_2\n13-17,13-24,*\n18-24,13-24,*\n25-44,25-64,*\n45-64,25-64,*\n65+,65+,*\n"
MART = """{{{{ config(materialized='k_anonymous', k=2) }}}}
{{{{ kanon.release_counts(
    relation=ref('host_events'), privacy_unit='person', dimensions=['age_band'],
    hierarchies={{'age_band': ref('host_hierarchy_age')}}{measures}) }}}}
"""
SEEDS = """seeds:
  host:
    host_events:
      +column_types: {person: varchar(20), age_band: varchar(20)}
    host_hierarchy_age:
      +column_types: {level_0: varchar(20), level_1: varchar(20), level_2: varchar(20)}
"""
TABLE_OVERRIDE = "  kanon:\n    audit:\n      +materialized: kanon_audit_trail\n"


def write_host(path: Path, models: str = "", extra: str = "", macros: dict[str, str] | None = None) -> None:
    """A host project installing kanon from this checkout; `models` is its project-wide model config."""
    for folder in ("models", "seeds", "macros"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "dbt_project.yml").write_text(
        "name: host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        + SEEDS + (f"models:\n{models}" if models else "") + extra
    )
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (path / "seeds" / "host_events.csv").write_text(EVENTS)
    (path / "seeds" / "host_hierarchy_age.csv").write_text(HIERARCHY)
    (path / "models" / "host_mart_a.sql").write_text(MART.format(measures=""))
    (path / "models" / "host_mart_b.sql").write_text(MART.format(measures=", measures={'events': 'count(*)'}"))
    for name, text in (macros or {}).items():
        (path / "macros" / name).write_text(text)


@dataclass
class Host:
    """A throwaway host project on its own warehouse, with its Postgres roles and its dbt runs."""

    path: Path
    wh: Warehouse
    roles: dict[str, str] = field(default_factory=dict)
    runs: dict[str, DbtResult] = field(default_factory=dict)

    @property
    def project(self) -> DbtProject:
        return DbtProject(self.path, self.wh)

    @property
    def audit_schema(self) -> str:
        return f"{self.wh.schema}_kanon_audit"

    def write(self, models: str = "", extra: str = "", macros: dict[str, str] | None = None) -> None:
        write_host(self.path, models, extra, macros)
        self.project.run("deps")

    def run(self, name: str, *args: str, expect_ok: bool | None = None) -> DbtResult:
        """Runs dbt and keeps the result under `name`; failures are the tests' to judge."""
        self.runs[name] = self.project.run(*args, expect_ok=expect_ok)
        return self.runs[name]

    def tables(self) -> set[tuple[str, str, str]]:
        """(schema, table, type) of everything in this warehouse's schemas."""
        return {
            (str(s), str(t), str(k)) for s, t, k in self.wh.query(
                "select table_schema, table_name, table_type from information_schema.tables "
                f"where table_schema like '{self.wh.schema}%'"
            )
        }

    def trail_schema(self, table: str) -> str:
        """The schema of an audit table: its own unless a host setting moved it."""
        found = sorted(s for s, t, _ in self.tables() if t == table)
        return found[0] if found else self.audit_schema

    def trail(self, table: str) -> str:
        return f'"{self.trail_schema(table)}"."{table}"'

    def released(self, run: str) -> list[tuple[str, str]]:
        """(report, status) of the trail's summary rows for a run's invocation."""
        return sorted((str(r), str(s)) for r, s in self.wh.query(
            f"select report, status from {self.trail('kanon_audit_releases')} "
            f"where invocation_id = '{self.runs[run].invocation_id}'"
        ))

    def groups(self, run: str) -> int:
        return int(str(self.wh.query(
            f"select count(*) from {self.trail('kanon_audit_groups')} "
            f"where invocation_id = '{self.runs[run].invocation_id}'"
        )[0][0]))

    def comment(self, table: str) -> str:
        if self.wh.kind == "duckdb":
            rows = self.wh.query(
                "select comment from duckdb_tables() "
                f"where schema_name = '{self.audit_schema}' and table_name = '{table}'"
            )
        else:
            rows = self.wh.query(f"select obj_description('\"{self.audit_schema}\".\"{table}\"'::regclass, 'pg_class')")
        return str(rows[0][0]) if rows else ""

    def privileges(self, role: str, schema: str, table: str) -> set[str]:
        """Every privilege a role holds on a table, table- or column-level (Postgres)."""
        rows = self.wh.query(
            "select privilege_type from information_schema.role_table_grants "
            f"where grantee = '{role}' and table_schema = '{schema}' and table_name = '{table}' "
            "union select privilege_type from information_schema.column_privileges "
            f"where grantee = '{role}' and table_schema = '{schema}' and table_name = '{table}'"
        )
        return {str(p) for (p,) in rows}


BOTH_RELEASED = [("host_mart_a", "RELEASED"), ("host_mart_b", "RELEASED")]


def assert_trail_is_kanons(host: Host) -> None:
    """Both audit tables in the trail's own schema, tables kanon created (never rebuilt), nowhere else."""
    audit = {(s, t, k) for s, t, k in host.tables() if t in AUDIT_TABLES}
    assert audit == {(host.audit_schema, t, "BASE TABLE") for t in AUDIT_TABLES}
    for table in AUDIT_TABLES:
        assert host.comment(table).startswith(COMMENT), f"{table} was not created by kanon, or was rebuilt"
