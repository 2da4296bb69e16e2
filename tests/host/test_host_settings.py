"""The audit trail survives a host project's ordinary settings.

A host project installs kanon through packages.yml and sets defaults for all of its models in its
dbt_project.yml. dbt applies those to a package's models *after* the package's own config(), so
each of them used to reach kanon's audit models: `+materialized: table` and `+full_refresh: true`
rebuilt the trail and erased its history, `+grants` and a project-wide grant post-hook gave report
readers the trail, and `+schema: marts` (or a generate_schema_name override) put it next to the
marts. Two releases creating the trail at once in parallel threads failed. Each test builds a
throwaway host project under tmp_path (seeds, two k_anonymous marts calling kanon.release_counts)
and checks that the trail stays append-only, private and apart, or that kanon fails clearly.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.host_projects import (
    AUDIT_TABLES,
    BOTH_RELEASED,
    MARTS,
    TABLE_OVERRIDE,
    Host,
    assert_trail_is_kanons,
    write_host,
)

pytestmark = pytest.mark.dbt

@pytest.fixture(scope="module")
def make_host(
    warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Any]:
    """Factory: a host project on a fresh warehouse, with Postgres roles <schema>_<name> (dropped after)."""
    made: list[Host] = []

    def _make(tag: str, roles: tuple[str, ...] = ()) -> Host:
        wh = make_warehouse(warehouse_kind, tag)
        host = Host(tmp_path_factory.mktemp("hosts") / f"host_{tag}_{uuid.uuid4().hex[:6]}", wh)
        made.append(host)
        if wh.kind == "postgres":
            for role in roles:
                host.roles[role] = f"{wh.schema}_{role}"
                wh.execute(f'drop role if exists "{host.roles[role]}"')
                wh.execute(f'create role "{host.roles[role]}"')
        return host

    yield _make
    for host in made:
        for role in host.roles.values():
            with contextlib.suppress(Exception):  # cleanup must not mask the real test outcome
                host.wh.execute(f'drop owned by "{role}"')
                host.wh.execute(f'drop role if exists "{role}"')


# --- items 2, 3, 4 and `dbt build --full-refresh`: one host project with all of them ---------

@pytest.fixture(scope="module")
def hostile(make_host: Any) -> Host:
    """Project-wide +full_refresh: true, +schema: marts, +grants and a grant post-hook (on DuckDB,
    which has no roles, a post-hook that records where it ran); on Postgres also `alter default
    privileges` granting the trail's schema to the report readers before kanon creates anything,
    and a privacy officer in kanon_audit_readers. Released twice: dbt build, dbt build --full-refresh."""
    host = make_host("hostile", roles=("reporting", "officer"))
    if host.wh.kind == "postgres":
        reporting, officer = host.roles["reporting"], host.roles["officer"]
        hook = f'"grant select on {{{{ this }}}} to {reporting}"'
        extra = f"vars:\n  kanon_audit_readers: [{officer}]\n"
        host.wh.execute(f'create schema "{host.audit_schema}"')
        host.wh.execute(
            f'alter default privileges in schema "{host.audit_schema}" grant select on tables to "{reporting}"'
        )
    else:
        reporting = "reporting"
        hook = "\"insert into main.host_hook_marker values ('{{ this }}')\""
        extra = ""
        host.wh.execute("create table main.host_hook_marker (rel varchar)")
    host.write(
        models=f"  +full_refresh: true\n  +schema: marts\n  +grants: {{select: [{reporting}]}}\n  +post-hook: {hook}\n",
        extra=extra,
    )
    host.run("build", "build")
    host.run("full_refresh", "build", "--full-refresh")
    return host


def test_full_refresh_settings_keep_the_audit_history(hostile: Host) -> None:
    """+full_refresh: true and dbt build --full-refresh: both releases' rows are still there."""
    for run in ("build", "full_refresh"):
        assert hostile.runs[run].ok, hostile.runs[run].output[-3000:]
        assert hostile.released(run) == BOTH_RELEASED
        assert hostile.groups(run) > 0
    assert "full refresh ignored: the audit trail is append-only" in hostile.runs["full_refresh"].output


def test_a_project_wide_schema_does_not_move_the_trail(hostile: Host) -> None:
    """+schema: marts moves the marts, not the trail."""
    assert_trail_is_kanons(hostile)
    marts = {(s, t) for s, t, _ in hostile.tables() if t in MARTS}
    assert marts == {(f"{hostile.wh.schema}_marts", m) for m in MARTS}
    assert "schema 'marts'" in hostile.runs["build"].output  # said, not silently ignored


def test_project_wide_grants_and_hooks_never_reach_the_trail(hostile: Host) -> None:
    """Report readers get the marts and nothing of the trail; the officer gets SELECT only."""
    if hostile.wh.kind == "postgres":
        reporting, officer = hostile.roles["reporting"], hostile.roles["officer"]
        for table in AUDIT_TABLES:
            schema = hostile.trail_schema(table)
            assert hostile.privileges(reporting, schema, table) == set()
            assert hostile.privileges(officer, schema, table) == {"SELECT"}
            assert hostile.privileges("PUBLIC", schema, table) == set()
        for mart in MARTS:
            assert "SELECT" in hostile.privileges(reporting, f"{hostile.wh.schema}_marts", mart)
        assert "revoked from the new audit trail what default privileges granted: " \
            f"{reporting} SELECT on " in hostile.runs["build"].output
        for run in ("build", "full_refresh"):  # nothing granted it during the runs for on-run-end to take back
            assert "on-run-end: revoked" not in hostile.runs[run].output
    else:
        hooked = [str(rel) for (rel,) in hostile.wh.query("select rel from main.host_hook_marker")]
        assert len(hooked) == 4  # each mart, each release
        assert {rel.rsplit(".", 1)[-1] for rel in hooked} == {f'"{m}"' for m in MARTS}
        assert not any("kanon_audit" in rel for rel in hooked)
    output = hostile.runs["full_refresh"].output
    for table in AUDIT_TABLES:  # said, not silently dropped
        warnings = [line for line in output.splitlines() if f"kanon: WARNING: model.kanon.{table}: " in line]
        assert len(warnings) == 1
        assert "grants " in warnings[0] and "1 post-hook(s)" in warnings[0] and "were not applied" in warnings[0]


def test_a_release_refuses_while_another_role_can_read_the_trail(hostile: Host) -> None:
    """Postgres: a privilege granted on the trail behind kanon's back stops the next release,
    naming it, and kanon's on-run-end revokes it; the audit models revoke one granted to PUBLIC."""
    if hostile.wh.kind != "postgres":
        pytest.skip("DuckDB has no roles: whoever reads the database file reads the trail")
    reporting, officer = hostile.roles["reporting"], hostile.roles["officer"]
    groups, releases = hostile.trail("kanon_audit_groups"), hostile.trail("kanon_audit_releases")
    hostile.wh.execute(f'grant select (labels) on {groups} to "{reporting}"')
    refused = hostile.run("refused", "run", "--select", "host_mart_a", expect_ok=False)
    assert "kanon: refused to release model.host.host_mart_a: other roles hold privileges" in refused.output
    assert f"{reporting} SELECT on " in refused.output
    # refused before its gate ran: on the trail (by kanon's on-run-end, once it is private again)
    assert hostile.released("refused") == [("host_mart_a", "REFUSED")]
    assert "on-run-end: revoked from the private audit trail" in refused.output
    assert hostile.privileges(reporting, hostile.audit_schema, "kanon_audit_groups") == set()

    hostile.wh.execute(f"grant select, insert on {releases} to public")
    private = hostile.run("private", "run", "--select", *AUDIT_TABLES, expect_ok=True)
    assert "model.kanon.kanon_audit_releases: revoked from the private audit trail: public " in private.output
    for table in AUDIT_TABLES:
        assert hostile.privileges("PUBLIC", hostile.audit_schema, table) == set()
        assert hostile.privileges(officer, hostile.audit_schema, table) == {"SELECT"}


# --- items 1 and 15: +materialized: table, parallel releases on a fresh warehouse -------------

@pytest.fixture(scope="module")
def table_host(make_host: Any) -> Host:
    """Project-wide +materialized: table. Two releases in two threads on a fresh warehouse with
    the audit models not selected (twice), then dbt build, then dbt build with the override the
    error asks for."""
    host = make_host("table")
    host.write(models="  +materialized: table\n")
    host.run("seed", "seed", expect_ok=True)
    for run in ("parallel", "parallel_again"):
        host.run(run, "run", "--threads", "2", "--select", *MARTS)
    host.run("build_table", "build")
    write_host(host.path, models="  +materialized: table\n" + TABLE_OVERRIDE)
    host.run("build_override", "build")
    return host


def test_parallel_releases_on_a_fresh_warehouse_create_the_trail_once(table_host: Host) -> None:
    for run in ("parallel", "parallel_again"):
        result = table_host.runs[run]
        assert result.ok, result.output[-3000:]
        assert "kanon_audit_groups" not in result.results  # the audit models were not selected
        assert table_host.released(run) == BOTH_RELEASED
        assert table_host.groups(run) > 0


def test_a_project_wide_table_materialization_is_refused_and_the_history_kept(table_host: Host) -> None:
    refused = table_host.runs["build_table"]
    assert not refused.ok
    for table in AUDIT_TABLES:
        assert refused.status(table) == "error"
    assert (
        "kanon: model.kanon.kanon_audit_groups is the private, append-only audit trail and must be materialized"
        " 'kanon_audit_trail', but this project configures it as 'table'"
    ) in refused.output
    assert "+materialized: kanon_audit_trail" in refused.output
    assert {refused.status(m) for m in MARTS} == {"skipped"}  # nothing released without its trail
    assert_trail_is_kanons(table_host)
    for run in ("parallel", "parallel_again"):
        assert table_host.released(run) == BOTH_RELEASED


def test_the_override_the_error_asks_for_builds_and_keeps_the_history(table_host: Host) -> None:
    built = table_host.runs["build_override"]
    assert built.ok, built.output[-3000:]
    assert_trail_is_kanons(table_host)
    for run in ("parallel", "parallel_again", "build_override"):
        assert table_host.released(run) == BOTH_RELEASED


# --- where the trail lives ----------------------------------------------------------------------

HOST_SCHEMA_OVERRIDE = """{% macro generate_schema_name(custom_schema_name, node) -%}
  {{ target.schema }}
{%- endmacro %}
"""


@pytest.fixture(scope="module")
def renamer(make_host: Any) -> Host:
    """A generate_schema_name override ignoring every custom schema, and (Postgres) the usual
    on-run-end hook granting every table of every schema the invocation built to report readers."""
    host = make_host("gsn", roles=("reporting",))
    extra = ""
    if host.wh.kind == "postgres":
        reporting = host.roles["reporting"]
        extra = (
            'on-run-end:\n  - "{% for s in schemas %}grant usage on schema {{ s }} to ' + reporting
            + "; grant select on all tables in schema {{ s }} to " + reporting + ';{% endfor %}"\n'
        )
    host.write(models="  +schema: marts\n", extra=extra, macros={"generate_schema_name.sql": HOST_SCHEMA_OVERRIDE})
    host.run("build", "build")
    return host


def test_a_host_generate_schema_name_override_cannot_move_the_trail(renamer: Host) -> None:
    """The host's override applies to the host's models; kanon's own keeps the trail apart."""
    built = renamer.runs["build"]
    assert built.ok, built.output[-3000:]
    assert renamer.released("build") == BOTH_RELEASED
    assert_trail_is_kanons(renamer)
    assert {(s, t) for s, t, _ in renamer.tables() if t in MARTS} == {(renamer.wh.schema, m) for m in MARTS}


def test_an_on_run_end_grant_on_every_schema_is_revoked_from_the_trail(renamer: Host) -> None:
    """Postgres: kanon's on-run-end runs after the host's and takes the trail back at once."""
    if renamer.wh.kind != "postgres":
        pytest.skip("DuckDB has no roles: whoever reads the database file reads the trail")
    reporting = renamer.roles["reporting"]
    for mart in MARTS:
        assert renamer.privileges(reporting, renamer.wh.schema, mart) == {"SELECT"}  # the host's hook ran
    for table in AUDIT_TABLES:
        assert renamer.privileges(reporting, renamer.trail_schema(table), table) == set()
    assert "on-run-end: revoked from the private audit trail" in renamer.runs["build"].output


def test_a_trail_sharing_the_marts_schema_is_refused_and_nothing_is_published(make_host: Any) -> None:
    """kanon_audit_schema pointed at the marts' schema: the audit models and every release refuse,
    naming the model, the schema and the fix; no mart and no trail table is created."""
    host = make_host("apart")
    host.write(models="  +schema: marts\n", extra="vars:\n  kanon_audit_schema: marts\n")
    built = host.run("build", "build")
    released = host.run("release", "run", "--select", "host_mart_a")
    assert not built.ok and not released.ok
    shared = f'would share schema "{host.wh.schema}_marts"'
    assert "kanon: refused to build model.kanon.kanon_audit_groups: the audit trail" in built.output
    assert shared in built.output and "host_mart_a" in built.output
    assert "kanon: refused to release model.host.host_mart_a: the audit trail" in released.output
    assert shared in released.output and "set the var kanon_audit_schema" in released.output
    assert {t for _, t, _ in host.tables()} == {"host_events", "host_hierarchy_age"}
