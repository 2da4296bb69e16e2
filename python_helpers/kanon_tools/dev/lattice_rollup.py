"""Would a roll-up pay in the record search? (`python -m kanon_tools.dev.lattice_rollup`)

The record search evaluates a batch of lattice nodes by grouping the level-0 class table once per
node (macros/records/_records_search.sql): a batch of n nodes groups n x (level-0 classes) rows.
The roll-up property of full-domain generalization allows another way: a node's classes are
unions of the classes of any node below it, so a node can be evaluated from the classes of a
finer node (a pivot) already built, and a pivot with fewer classes makes the grouping smaller.

This measures, on Adult (nine quasi-identifiers, the 12,960-node lattice), what that would save
on the batch that dominates the discernibility search: every node at the middle height, which
its binary search over heights evaluates first. For each pivot height p it lets every node of
the batch take, among the nodes at height p below it, the one with the fewest classes (an oracle:
the search would have to build or estimate every candidate to know) and counts the rows grouped:
building each pivot used (its node x the level-0 classes) plus evaluating each node from its
pivot. Rows grouped, not seconds: the evaluation's cost per node is proportional to them on every
warehouse (BENCHMARKS.md, issue 47).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kanon_tools.dev import adult as adult_data

Node = tuple[int, ...]
Codes = np.ndarray[Any, np.dtype[np.int64]]  # one integer code per record


@dataclass(frozen=True)
class PivotCost:
    """A batch evaluated from pivots at one height: how many pivots it used and the rows grouped."""

    height: int
    pivots: int
    build_rows: int
    evaluate_rows: int

    @property
    def total(self) -> int:
        return self.build_rows + self.evaluate_rows


def class_counts(codes: Sequence[Sequence[Codes]], max_height: int) -> dict[Node, int]:
    """The number of classes of every node of height at most `max_height`. codes[i][level]: each
    record's integer code of quasi-identifier i at that level (a code per label)."""
    depths = [len(levels) - 1 for levels in codes]
    radices = [[int(level.max()) + 1 for level in levels] for levels in codes]
    counts: dict[Node, int] = {}
    for node in itertools.product(*(range(depth + 1) for depth in depths)):
        if sum(node) > max_height:
            continue
        key = np.zeros(len(codes[0][0]), dtype=np.int64)
        for i, level in enumerate(node):  # a mixed-radix number: one digit per quasi-identifier
            key = key * radices[i][level] + codes[i][level]
        counts[node] = len(np.unique(key))
    return counts


def below(a: Node, b: Node) -> bool:
    """Whether `a` is at most as general as `b` in every quasi-identifier."""
    return all(x <= y for x, y in zip(a, b, strict=True))


def pivot_costs(counts: dict[Node, int], height: int) -> tuple[int, list[PivotCost]]:
    """The rows the batch of every node at `height` groups from the level-0 classes, and the
    same batch evaluated from the best pivot below each node, for every lower pivot height."""
    bottom = min(counts, key=sum)
    level0 = counts[bottom]
    batch = [node for node in counts if sum(node) == height]
    costs = []
    for pivot_height in range(1, height):
        candidates = [node for node in counts if sum(node) == pivot_height]
        used: set[Node] = set()
        evaluate = 0
        for node in batch:
            pivot = min((c for c in candidates if below(c, node)), key=lambda c: counts[c])
            used.add(pivot)
            evaluate += counts[pivot]
        costs.append(PivotCost(pivot_height, len(used), len(used) * level0, evaluate))
    return len(batch) * level0, costs


def adult_codes() -> list[list[Codes]]:
    """Each record's label codes at every level of each Adult column's hierarchy, in COLUMNS' order."""
    adult = adult_data.load()
    codes = []
    for column in adult_data.COLUMNS:
        table = adult.hierarchy_tables[column]
        leaves = adult.data[column].astype(str)
        per_level = []
        for level in table.columns:
            labels = dict(zip(table["level_0"], table[level], strict=True))
            per_level.append(np.unique(leaves.map(labels).to_numpy(), return_inverse=True)[1].astype(np.int64))
        codes.append(per_level)
    return codes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--height", type=int, default=9, help="the batch's height (default 9: the middle)")
    args = parser.parse_args(argv)
    counts = class_counts(adult_codes(), args.height)
    direct, costs = pivot_costs(counts, args.height)
    batch = sum(1 for node in counts if sum(node) == args.height)
    level0 = counts[min(counts, key=sum)]
    print(f"Adult: {level0:,} level-0 classes; the batch at height {args.height}: {batch:,} nodes, "
          f"{direct:,} rows grouped from the level-0 classes\n")
    print("| pivots at height | pivots used | rows to build them | rows to evaluate | total | saving |")
    print("|---:|---:|---:|---:|---:|---:|")
    for cost in costs:
        print(f"| {cost.height} | {cost.pivots:,} | {cost.build_rows:,} | {cost.evaluate_rows:,} | {cost.total:,} "
              f"| x{direct / cost.total:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
