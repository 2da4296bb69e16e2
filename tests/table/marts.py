"""Reading a table release back (kanon.release_table's marts and its audit trail), for the tests
of table/: the rows, the cells as kanon.cli_table_cells emits them, the true counts, the plan."""

from __future__ import annotations

import json
from typing import Any

from support.warehouses import Warehouse

AUDIT = "kanon_audit"
PROJECT = "model.kanon_integration_tests"


def mart_rows(wh: Warehouse, model: str) -> list[tuple[Any, ...]]:
    """A two-way mart's rows: row label, row level, column label, column level, count, status,
    display, additive along the row dimension, additive along the column dimension."""
    return wh.query(f"select * from {wh.relation(model)}")


def mart_dicts(wh: Warehouse, model: str) -> list[dict[str, Any]]:
    """The mart's rows by column name."""
    names = [name for (name,) in wh.query(
        "select column_name from information_schema.columns where table_name = '" + model
        + "' and table_schema = '" + wh.schema + "' order by ordinal_position")]
    return [dict(zip(names, row, strict=True)) for row in wh.query(
        "select " + ", ".join(f'"{name}"' for name in names) + f" from {wh.relation(model)}")]


def emitted_cells(wh: Warehouse, model: str, k: int, zeros_hidden: bool = False,
             count_column: str = "people") -> dict[str, Any]:
    """What kanon.cli_table_cells emits, read from the mart directly (the dimensions are the
    columns published beside their _level column)."""
    rows = mart_dicts(wh, model)
    names = list(rows[0]) if rows else []
    dims = [name for name in names if f"{name}_level" in names]
    cells = [[[[row[d], int(row[f"{d}_level"]), row.get(f"{d}_parent")] for d in dims],
              None if row[count_column] is None else int(row[count_column]), row["status"],
              [row[f"{d}_additive"] for d in dims]] for row in rows]
    return {"relation": model, "k": k, "zeros_hidden": zeros_hidden, "count_column": count_column,
            "dimensions": [{"name": d, "hierarchical": f"{d}_parent" in names} for d in dims], "cells": cells}


def cell_counts(people: dict[tuple[str | None, str | None], set[str]]) -> dict[tuple[Any, Any], int]:
    """Every cell's and total's distinct people, keyed as the mart's (level, label) pairs."""
    rows = {r for r, _ in people}
    columns = {c for _, c in people}
    out: dict[tuple[Any, Any], int] = {}
    for r in rows:
        for c in columns:
            out[((0, r), (0, c))] = len(people.get((r, c), set()))
        out[((0, r), (1, None))] = len(set().union(*(people.get((r, c), set()) for c in columns)))
    for c in columns:
        out[((1, None), (0, c))] = len(set().union(*(people.get((r, c), set()) for r in rows)))
    out[((1, None), (1, None))] = len(set().union(*people.values()))
    return out


def cell_key(row: tuple[Any, ...]) -> tuple[tuple[int, Any], tuple[int, Any]]:
    return ((int(row[1]), row[0] if int(row[1]) == 0 else None), (int(row[3]), row[2] if int(row[3]) == 0 else None))


def release_plan(wh: Warehouse, model: str) -> dict[str, Any]:
    [(plan,)] = wh.query(f"select release_plan from {wh.relation('kanon_audit_releases', AUDIT)} "
                         f"where report = '{model}' and status = 'RELEASED' order by released_at desc limit 1")
    return dict(json.loads(plan))
