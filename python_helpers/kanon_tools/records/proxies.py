"""Proxy detection for `plan` (issue 14): a kept column that gives away a quasi-identifier, or the
reverse, counted in DuckDB.

Generalizing a quasi-identifier protects nothing when another published column carries the same
information: a kept `ward` column that names one postal code per ward puts the postal code back.
For every pair (kept column K, quasi-identifier Q) both directions are measured, K -> Q and
Q -> K. For a direction X -> Y, over the rows where both are non-null:

    support     the rows counted
    groups      the distinct values of X
    violations  the rows whose Y is not the most frequent Y of their X value

X nearly determines Y when violations <= MAX_VIOLATION_SHARE x support (2 %), with support at
least MIN_SUPPORT rows (20) and groups at most support / MIN_GROUP_SIZE (an X value on 2 rows
on average): a column unique on every row determines anything trivially, which is the
identifier check's business, not a proxy. Column names and counts only: no value leaves the
database.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kanon_tools.warehouse import quote_ident

MAX_VIOLATION_SHARE = 0.02
MIN_SUPPORT = 20
MIN_GROUP_SIZE = 2


@dataclass(frozen=True)
class Determination:
    """How far `source` determines `target` in a relation (see the module docstring)."""

    source: str
    target: str
    support: int
    groups: int
    violations: int

    @property
    def proxy(self) -> bool:
        """Whether `source` nearly determines `target`, by the module's thresholds."""
        return (self.support >= MIN_SUPPORT and self.groups * MIN_GROUP_SIZE <= self.support
                and self.violations <= MAX_VIOLATION_SHARE * self.support)


def determination(con: Any, relation: str, source: str, target: str) -> Determination:
    """Measure source -> target in `relation` (quoted SQL) on the DuckDB connection `con`."""
    x, y = quote_ident(source), quote_ident(target)
    [(support, groups, violations)] = con.execute(f"""
        with pairs as (
            select cast({x} as varchar) as x, cast({y} as varchar) as y
            from {relation} where {x} is not null and {y} is not null
        ),
        counted as (select x, y, count(*) as n from pairs group by x, y),
        per_x as (select x, max(n) as top, sum(n) as total from counted group by x)
        select coalesce(sum(total), 0), count(*), coalesce(sum(total - top), 0) from per_x
    """).fetchall()
    return Determination(source, target, int(support), int(groups), int(violations))


def find_proxies(con: Any, relation: str, kept: Sequence[str], quasi_identifiers: Sequence[str]) -> list[Determination]:
    """Every direction between a kept column and a quasi-identifier that is a proxy, in the order
    of `kept`, then `quasi_identifiers`, kept -> quasi-identifier first."""
    found = []
    for k in kept:
        for q in quasi_identifiers:
            for measured in (determination(con, relation, k, q), determination(con, relation, q, k)):
                if measured.proxy:
                    found.append(measured)
    return found
