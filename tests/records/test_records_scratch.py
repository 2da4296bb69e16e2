"""Where the record search keeps its working tables on Postgres (issue 47): unlogged tables in the
private audit schema, so that Postgres may scan them with parallel workers (it never does a
temporary table), private as the trail is, and gone when the release ends.

Nothing outside the release's own session sees them while it runs (they are created and dropped
in its open transaction), so an event trigger, which runs inside that session, notes after every
DDL statement of the release what the search's tables in the audit schema are: unlogged or not,
and whether any role but their owner holds a privilege on them. The host project grants SELECT on
every model to a role (`+grants`), the trail has a reader (kanon_audit_readers), and `alter default
privileges` in the audit schema hands every new table there to both and to PUBLIC.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

import pytest
from support import INTEGRATION, ROOT
from support.projects import DbtProject, copy_project
from support.warehouses import Warehouse, postgres_role, require_postgres

pytestmark = pytest.mark.dbt

MODEL = "records_basic"
UNIQUE_ID = f"model.kanon_integration_tests.{MODEL}"
# what the search's table names end with (_scratch_suffix: the model's id, hashed)
SUFFIX = hashlib.md5(UNIQUE_ID.encode()).hexdigest()[:10]
SEARCH_TABLES = {f"_kanon_{kind}_{SUFFIX}" for kind in ("rc", "rw", "rl", "re")}


def _trigger_sql(schema: str, audit: str, host: str, reader: str) -> str:
    """A log table and an event trigger filling it: after each DDL statement touching the audit
    schema, one row per search table there (its persistence, and what other roles may do)."""
    return f"""
create table "{schema}".scratch_seen (
  seq bigserial, tag text, command_on text, relname text, persistence "char", foreign_grants boolean,
  host_selects boolean, reader_selects boolean);
create function "{schema}".note_scratch() returns event_trigger language plpgsql as $f$
begin
  insert into "{schema}".scratch_seen (tag, command_on, relname, persistence, foreign_grants, host_selects,
                                         reader_selects)
  select cmd.command_tag, cmd.object_identity, c.relname, c.relpersistence,
    exists (select 1 from aclexplode(c.relacl) as a where a.grantee <> c.relowner),
    has_table_privilege('{host}', c.oid, 'SELECT'), has_table_privilege('{reader}', c.oid, 'SELECT')
  from pg_event_trigger_ddl_commands() as cmd
  cross join pg_catalog.pg_class as c
  inner join pg_catalog.pg_namespace as n on n.oid = c.relnamespace
  where n.nspname = '{audit}' and c.relname like '\\_kanon\\_%' and c.relkind = 'r';
exception when others then null;  -- never fail another session's statement
end $f$;
create event trigger "{schema}_scratch" on ddl_command_end execute function "{schema}".note_scratch();
"""


@pytest.fixture(scope="module")
def host(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[DbtProject, Warehouse, str]]:
    require_postgres()
    wh = make_warehouse("postgres", "rscr")
    audit = f"{wh.schema}_kanon_audit"
    project_dir = copy_project(INTEGRATION, tmp_path_factory.mktemp("rscr") / "project")
    (project_dir / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    with postgres_role(wh, "host") as host_role, postgres_role(wh, "reader") as reader:
        text = (project_dir / "dbt_project.yml").read_text()
        (project_dir / "dbt_project.yml").write_text(
            text.replace("models:\n", f'models:\n  +grants: {{select: ["{host_role}"]}}\n', 1)
            + f'\nvars:\n  kanon_audit_readers: ["{reader}"]\n')
        roles = f'"{host_role}", "{reader}"'
        wh.execute(f'create schema if not exists "{wh.schema}"; create schema if not exists "{audit}"; '
                   f'alter default privileges in schema "{audit}" grant select on tables to {roles}, public; '
                   f'grant usage on schema "{audit}" to {roles}')
        project = DbtProject(project_dir, wh)
        project.run("deps")
        project.run("seed", "--select", "path:seeds/records")
        wh.execute(_trigger_sql(wh.schema, audit, host_role, reader))
        try:
            yield project, wh, audit
        finally:
            wh.execute(f'drop event trigger if exists "{wh.schema}_scratch"')
            wh.execute(f'alter default privileges in schema "{audit}" revoke select on tables from {roles}, public')


def _release(project: DbtProject, wh: Warehouse) -> list[tuple[Any, ...]]:
    """Runs the release; the rows the trigger noted during it, in order."""
    wh.execute(f'truncate "{wh.schema}".scratch_seen')
    project.run("run", "--select", MODEL, "package:kanon,path:models/audit")
    return wh.query(f'select seq, tag, command_on, relname, persistence, foreign_grants, host_selects, reader_selects '
                    f'from "{wh.schema}".scratch_seen order by seq')


def _left(wh: Warehouse, audit: str) -> list[str]:
    return [r[0] for r in wh.query(f"select table_name from information_schema.tables where table_schema = '{audit}' "
                                   "and table_name like '\\_kanon\\_%'")]


def _own_creation(row: tuple[Any, ...], audit: str) -> bool:
    """Whether a noted row was taken at the statement creating that very table."""
    _seq, tag, command_on, relname, *_ = row
    return tag == "CREATE TABLE AS" and bool(command_on) and bool(
        re.fullmatch(rf'"?{re.escape(audit)}"?\.{re.escape(relname)}', command_on))


def test_the_search_tables_are_unlogged_in_the_audit_schema_and_gone_after(
        host: tuple[DbtProject, Warehouse, str]) -> None:
    project, wh, audit = host
    seen = _release(project, wh)
    names = {row[3] for row in seen}
    assert names >= SEARCH_TABLES, (SEARCH_TABLES, names)
    assert {row[4] for row in seen if row[3] in SEARCH_TABLES} == {"u"}
    # batches after the first land through a sibling, made the same way
    assert f"_kanon_next__kanon_re_{SUFFIX}" in names
    assert _left(wh, audit) == []
    assert wh.query(f"select count(*) from {wh.relation(MODEL)}")[0][0] > 0


def test_no_host_grant_or_reader_reaches_the_search_tables(host: tuple[DbtProject, Warehouse, str]) -> None:
    """Default privileges hand each new table to the host's role, the trail's reader and PUBLIC;
    from the statement after its creation on, no role but its owner may select it."""
    project, wh, audit = host
    seen = _release(project, wh)
    at_creation = [row for row in seen if _own_creation(row, audit)]
    assert {row[3] for row in at_creation} >= SEARCH_TABLES
    # the default privileges did reach each table as it was created: the check below can fail
    assert all(row[5] and row[6] and row[7] for row in at_creation)
    after = [row for row in seen if not _own_creation(row, audit)]
    assert {row[3] for row in after} >= SEARCH_TABLES
    assert [row for row in after if row[5] or row[6] or row[7]] == []


def test_a_crashed_search_leaves_a_table_the_next_release_drops_and_recreates(
        host: tuple[DbtProject, Warehouse, str]) -> None:
    project, wh, audit = host
    leftover = f'"{audit}"._kanon_rc_{SUFFIX}'
    wh.execute(f"create table {leftover} as select 1 as left_by_a_crash")
    seen = _release(project, wh)
    classes = [row for row in seen if row[3] == f"_kanon_rc_{SUFFIX}"]
    made = [row[0] for row in classes if _own_creation(row, audit)]
    assert made, classes
    # the leftover (logged) was there when the release began; from the search's own table on, unlogged
    assert [row[4] for row in classes if row[0] < made[0]] and {row[4] for row in classes if row[0] < made[0]} == {"p"}
    assert {row[4] for row in classes if row[0] >= made[0]} == {"u"}
    assert _left(wh, audit) == []


def test_the_trigger_notes_a_table_of_the_audit_schema(host: tuple[DbtProject, Warehouse, str]) -> None:
    """The probe itself: a table made by hand in the audit schema is noted, logged ('p')."""
    _, wh, audit = host
    wh.execute(f'truncate "{wh.schema}".scratch_seen')
    wh.execute(f'create table "{audit}"._kanon_probe as select 1 as x; drop table "{audit}"._kanon_probe')
    rows = wh.query(f'select relname, persistence from "{wh.schema}".scratch_seen')
    assert ("_kanon_probe", "p") in rows
