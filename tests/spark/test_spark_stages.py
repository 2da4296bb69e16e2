"""kanon._spark_stages, the splitter that runs a release or a search on Spark one CTE at a time
(ADR 10): which CTE becomes a Parquet table and which a temporary view, how the names are
rewritten, and what is dropped afterwards. It is Jinja only, so it runs here through
`dbt run-operation` on DuckDB, without a Spark; tests/spark/test_spark.py runs what it produces."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtRunner
from support import ROOT

pytestmark = pytest.mark.dbt

HOST_MACRO = """
{% macro split_for_spark(cases) %}
  {%- set out = [] -%}
  {%- for case in cases -%}
    {%- do out.append(kanon._spark_stages(case.sql, 'm__', api.Relation.create(schema='audit'))) -%}
  {%- endfor -%}
  {%- do kanon._cli_emit(out) -%}
{% endmacro %}
"""

CASES: dict[str, dict[str, Any]] = {
    # a is read twice (by b and c): a table; b, c and d are read once: views, expanded once each
    "searches": {"sql": (
        "with a as (select 1 as x), b as (select x from a), c as (select x from a), d as (select x from b) "
        "select * from c cross join d")},
    # a CTE the engine asked to cache is a table though it is read once; b is read twice: a table
    # (a release's staging statement as a search's: a view read twice is expanded twice); c, read
    # twice, the engine asked to inline: a view
    "release": {"sql": (
        "with a as /*kanon:cache*/ (select 1 as x), b as (select x from a), c as /*kanon:inline*/ (select 2 as y) "
        "select * from b, b as b2, c, c as c2")},
    # names inside literals, quoted identifiers and comments, and after a dot, are not CTE names;
    # `a.a` qualifies a column of a: renamed, but not a read (a is read once: a view)
    "names": {"sql": (
        "with a as (select 'a' as \"a\", t.a from t -- from a\n) select a.a, 'a' from a")},
    # a CTE with a WITH of its own: its CTEs are stages first, counted within it
    "nested": {"sql": (
        "with outer_cte as (with inner_a as (select 1 as x) select x from inner_a union all select x from inner_a) "
        "select * from outer_cte")},
    "no_with": {"sql": "select 1 as x"},
}


@pytest.fixture(scope="module")
def split(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    project = tmp_path_factory.mktemp("spark_stages")
    (project / "macros").mkdir()
    (project / "dbt_project.yml").write_text("name: spark_stages_host\nversion: '1.0'\nconfig-version: 2\n"
                                             "profile: kanon\n")
    (project / "packages.yml").write_text(f"packages:\n  - local: {json.dumps(str(ROOT))}\n")
    (project / "macros" / "split_for_spark.sql").write_text(HOST_MACRO)
    env = {**os.environ, "DBT_PROFILES_DIR": str(ROOT), "KANON_TARGET": "duckdb",
           "KANON_DUCKDB_PATH": str(project / "host.duckdb")}
    runner = DbtRunner(Path(project), env=env, target_path=project / "target", log_path=project / "logs")
    assert runner.run("deps").ok
    answer = runner.run_operation("split_for_spark", {"cases": list(CASES.values())})
    return {name: {key: _squeezed(value) for key, value in result.items()} for name, result in zip(CASES, answer,
                                                                                                   strict=True)}


def _squeezed(value: Any) -> Any:
    """Runs of spaces as one, and none at the ends (where the splitter cuts the text is not at issue)."""
    if isinstance(value, list):
        return [_squeezed(item) for item in value]
    return re.sub(" +", " ", value).strip(" ")


def test_a_cte_read_more_than_once_is_a_table_and_one_read_once_a_view(split: dict[str, dict[str, Any]]) -> None:
    searches = split["searches"]
    assert searches["stages"] == [
        'drop table if exists "audit"."m__001a"',
        'create table "audit"."m__001a" using parquet as select 1 as x',
        'create or replace temporary view "m__002b" as select x from "audit"."m__001a"',
        'create or replace temporary view "m__003c" as select x from "audit"."m__001a"',
        'create or replace temporary view "m__004d" as select x from "m__002b"',
    ]
    assert searches["select"] == 'select * from "m__003c" cross join "m__004d"'
    # every stage dropped, tables and views alike, in the order they were made
    assert searches["drops"] == ['drop table if exists "audit"."m__001a"', 'drop view if exists "m__002b"',
                                 'drop view if exists "m__003c"', 'drop view if exists "m__004d"']


def test_the_engine_s_marks_decide_over_how_often_a_cte_is_read(split: dict[str, dict[str, Any]]) -> None:
    release = split["release"]
    assert release["stages"] == [
        'drop table if exists "audit"."m__001a"',
        'create table "audit"."m__001a" using parquet as select 1 as x',
        'drop table if exists "audit"."m__002b"',
        'create table "audit"."m__002b" using parquet as select x from "audit"."m__001a"',
        'create or replace temporary view "m__003c" as select 2 as y',
    ]
    assert release["select"] == 'select * from "audit"."m__002b", "audit"."m__002b" as b2, "m__003c", "m__003c" as c2'
    assert release["drops"] == ['drop table if exists "audit"."m__001a"', 'drop table if exists "audit"."m__002b"',
                                'drop view if exists "m__003c"']


def test_only_names_that_read_a_cte_are_rewritten(split: dict[str, dict[str, Any]]) -> None:
    names = split["names"]
    assert names["stages"] == [
        'create or replace temporary view "m__001a" as select \'a\' as "a", t.a from t -- from a\n']
    assert names["select"] == 'select "m__001a".a, \'a\' from "m__001a"'


def test_a_nested_with_becomes_stages_before_its_cte(split: dict[str, dict[str, Any]]) -> None:
    nested = split["nested"]
    inner = '"audit"."m__001outer_cte_001inner_a"'
    assert nested["stages"] == [
        f"drop table if exists {inner}",
        f"create table {inner} using parquet as select 1 as x",
        f'create or replace temporary view "m__001outer_cte" as select x from {inner} union all select x from {inner}',
    ]
    assert nested["drops"] == [f"drop table if exists {inner}", 'drop view if exists "m__001outer_cte"']
    assert nested["select"] == 'select * from "m__001outer_cte"'


def test_a_statement_without_a_with_has_no_stages(split: dict[str, dict[str, Any]]) -> None:
    assert split["no_with"] == {"stages": [], "drops": [], "select": "select 1 as x"}
