"""Tables whose audit is known, for the attacker's LP audit tests (tests/table/test_attack*.py):
issue 12's worked example as printed, and tables of n dimensions (flat or under regions) built
from events and emitted as kanon.cli_table_cells emits them, with their true counts."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kanon_tools.attack import Key, Status

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri"]
KINDS = ["Views", "Saves", "Follows"]
# the worked example as published with k=5: four primary, two secondary suppressions
WORKED: dict[str, list[object]] = {
    "Mon": [42, "·", "<5", 52],
    "Tue": [38, "<5", "·", 46],
    "Wed": [51, 9, 8, 68],
    "Thu": [12, "<5", "<5", 17],
    "Fri": [29, 6, 5, 40],
    "Total": [172, 28, 23, 223],
}


TOTAL = "Total"
Node = tuple[str | None, int, str | None, frozenset[str | None]]  # label, level, parent label, leaves under it


@dataclass(frozen=True)
class Dim:
    """A dimension as the mart publishes it: flat (leaves under the total) or, with `regions`,
    leaves (level 0) under regions (level 1) under the total (level 2)."""

    name: str
    leaves: tuple[str | None, ...]
    regions: tuple[tuple[str, tuple[str | None, ...]], ...] | None = None

    @property
    def hierarchical(self) -> bool:
        return self.regions is not None

    def nodes(self) -> list[Node]:
        """Each node: label, level, parent label (None when flat or at the root), leaves under it."""
        everything = frozenset(self.leaves)
        if self.regions is None:
            return [*[(leaf, 0, None, frozenset([leaf])) for leaf in self.leaves], (TOTAL, 1, None, everything)]
        out: list[Node] = []
        for region, leaves in self.regions:
            out += [(leaf, 0, region, frozenset([leaf])) for leaf in leaves]
            out.append((region, 1, TOTAL, frozenset(leaves)))
        return [*out, (TOTAL, 2, None, everything)]

    def below(self, node: Node) -> list[Node]:
        """The node's children: the level below, under it."""
        if node[1] == 0:
            return []
        return [n for n in self.nodes() if n[1] == node[1] - 1 and (self.regions is None or n[2] == node[0])]


Event = tuple[int, tuple[str | None, ...]]  # a person and their leaf in every dimension


def key_of(nodes: Sequence[Node]) -> Key:
    return tuple(x for label, level, _, _ in nodes for x in (str(level), json.dumps(label)))


def counts(dims: Sequence[Dim], events: Sequence[Event]) -> dict[Key, int]:
    """Every cell's distinct people: those with an event under the cell's node in every dimension."""
    out: dict[Key, int] = {}
    for combo in itertools.product(*[d.nodes() for d in dims]):
        people = {who for who, leaves in events
                  if all(leaf in node[3] for leaf, node in zip(leaves, combo, strict=True))}
        out[key_of(combo)] = len(people)
    return out


def emit(dims: Sequence[Dim], events: Sequence[Event], status: Callable[[Key, int], Status], k: int,
         zeros_hidden: bool = False) -> tuple[dict[str, Any], dict[Key, int]]:
    """What kanon.cli_table_cells emits for the table of `events`, each cell hidden as `status`
    says, and the true counts."""
    truth = counts(dims, events)
    cells = []
    for combo in itertools.product(*[d.nodes() for d in dims]):
        key = key_of(combo)
        additive: list[bool | None] = []
        for i, node in enumerate(combo):
            parts = [key_of([*combo[:i], child, *combo[i + 1:]]) for child in dims[i].below(node)]
            additive.append(truth[key] == sum(truth[part] for part in parts) if parts else None)
        mark = status(key, truth[key])
        cells.append([[[label, level, parent] for label, level, parent, _ in combo],
                      truth[key] if mark is Status.PUBLISHED else None, mark.value, additive])
    emitted = {"relation": "t", "k": k, "zeros_hidden": zeros_hidden, "count_column": "people",
               "dimensions": [{"name": d.name, "hierarchical": d.hierarchical} for d in dims], "cells": cells}
    return emitted, truth


def one_each(leaf_counts: Mapping[tuple[str | None, ...], int]) -> list[Event]:
    """Events with one person per count: every total is the sum of its parts."""
    events: list[Event] = []
    for leaves, n in leaf_counts.items():
        events += [(len(events) + i, leaves) for i in range(n)]
    return events


def marks(hidden: Mapping[Key, Status]) -> Callable[[Key, int], Status]:
    return lambda key, _: hidden.get(key, Status.PUBLISHED)


def leaf(*labels: str | None) -> Key:
    return tuple(x for label in labels for x in ("0", json.dumps(label)))


# 3-D: areas under two regions under the total, and two flat dimensions
AREA = Dim("area", ("a1", "a2", "a3", "a4"), (("North", ("a1", "a2")), ("South", ("a3", "a4"))))
AGE = Dim("age", ("y1", "y2"))
KIND = Dim("kind", ("f", "g"))
CUBE = [leaf(a, y, g) for a in ("a1", "a2") for y in ("y1", "y2") for g in ("f", "g")]


def three_d(shown: Sequence[Key] = ()) -> tuple[dict[str, Any], dict[Key, int]]:
    """One primary, (a1, y1, f) = 2, in a cube of secondaries across the areas a1 and a2 of North:
    every line through a hidden cell has two, and the cube's cells can move together
    (+t on one parity, -t on the other) with every total unchanged."""
    leaf_counts: dict[tuple[str | None, ...], int] = {
        (a, y, g): 7 + 3 * i + j + 2 * m
        for i, a in enumerate(AREA.leaves) for j, y in enumerate(AGE.leaves) for m, g in enumerate(KIND.leaves)}
    leaf_counts[("a1", "y1", "f")] = 2
    hidden = {key: Status.SECONDARY for key in CUBE[1:] if key not in shown}
    hidden[CUBE[0]] = Status.PRIMARY
    return emit([AREA, AGE, KIND], one_each(leaf_counts), marks(hidden), k=5)


def worked_emitted(table: Mapping[str, Sequence[int | str]]) -> dict[str, Any]:
    cells = []
    for r, row in table.items():
        for c, mark in zip([*KINDS, TOTAL], row, strict=True):
            level_r, level_c = int(r == TOTAL), int(c == TOTAL)
            status = "published" if isinstance(mark, int) else ("primary" if mark.startswith("<") else "secondary")
            cells.append([[[r, level_r, None], [c, level_c, None]], mark if isinstance(mark, int) else None, status,
                          [True if level_r else None, True if level_c else None]])
    return {"relation": "w", "k": 5, "zeros_hidden": False, "count_column": "people",
            "dimensions": [{"name": "day", "hierarchical": False}, {"name": "kind", "hierarchical": False}],
            "cells": cells}
