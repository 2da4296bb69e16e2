"""kanon_tools.records.proxies: a kept column that gives away a quasi-identifier, or the reverse
(issue 14). In-memory DuckDB, no dbt."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import duckdb
import pytest
from kanon_tools.records.proxies import MIN_SUPPORT, Determination, determination, find_proxies

# 60 people: ward names one postal code each (a planted proxy of the postal code), the postal
# code names its ward; clinic is independent of both; ticket is unique per row
ROWS = [(f"W{i % 6}", f"100-000{i % 6}", f"C{i % 5}", f"T{i:03d}", i % 6 if i != 7 else None) for i in range(60)]


@pytest.fixture
def con() -> Iterator[Any]:
    with duckdb.connect() as connection:
        connection.execute('create table "odd people" ("ward name" varchar, postal varchar, clinic varchar, '
                           'ticket varchar, band integer)')
        connection.executemany('insert into "odd people" values (?, ?, ?, ?, ?)', ROWS)
        yield connection


RELATION = '"odd people"'


def test_a_planted_proxy_is_found_both_ways(con: Any) -> None:
    found = find_proxies(con, RELATION, ["ward name", "clinic", "ticket"], ["postal"])
    assert found == [Determination("ward name", "postal", 60, 6, 0), Determination("postal", "ward name", 60, 6, 0)]


def test_an_independent_column_and_a_unique_one_are_not_proxies(con: Any) -> None:
    independent = determination(con, RELATION, "clinic", "postal")
    assert (independent.support, independent.groups) == (60, 5) and independent.violations > 30
    assert not independent.proxy
    unique = determination(con, RELATION, "ticket", "postal")  # determines it, trivially
    assert unique == Determination("ticket", "postal", 60, 60, 0) and not unique.proxy


def test_nulls_are_left_out_and_a_few_violations_are_tolerated(con: Any) -> None:
    assert determination(con, RELATION, "postal", "band") == Determination("postal", "band", 59, 6, 0)
    con.execute("""update "odd people" set postal = '999-9999' where ticket = 'T000'""")
    nearly = determination(con, RELATION, "ward name", "postal")
    assert nearly == Determination("ward name", "postal", 60, 6, 1) and nearly.proxy  # 1 of 60 <= 2 %
    con.execute("""update "odd people" set postal = '999-9999' where ticket in ('T006', 'T012')""")
    assert not determination(con, RELATION, "ward name", "postal").proxy  # 3 of 60 > 2 %


def test_too_few_rows_say_nothing(con: Any) -> None:
    con.execute(f"""delete from "odd people" where ticket >= 'T{MIN_SUPPORT - 1:03d}'""")
    small = determination(con, RELATION, "ward name", "postal")
    assert small.support == MIN_SUPPORT - 1 and small.violations == 0 and not small.proxy
