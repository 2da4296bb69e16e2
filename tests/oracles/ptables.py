"""Perturbation tables for the tests, made without kanon's generator (kanon_tools.ptable): small,
unbiased and honest about their rounding, so that a test's ptable does not rest on the code it tests."""

from __future__ import annotations

KEY_SPACE = 2**32


def simple_ptable(js: int, max_perturbation: int, imax: int) -> list[tuple[int, int, float]]:
    """An unbiased ptable (i, j, p) with no j in 1..js, |v| <= max_perturbation except where a
    count below js must jump over the forbidden values (independent of kanon's generator)."""
    rows: list[tuple[int, int, float]] = [(0, 0, 1.0)]
    for i in range(1, imax + 1):
        if i <= js:  # to 0 or to js + 1, with mean 0
            up = i / (js + 1)
            rows += [(i, 0, 1 - up), (i, js + 1, up)]
            continue
        steps = [d for d in range(1, max_perturbation + 1) if i - d == 0 or i - d > js]
        rows.append((i, i, 0.5 if steps else 1.0))
        for d in steps:
            rows += [(i, i - d, 0.25 / len(steps)), (i, i + d, 0.25 / len(steps))]
    return sorted(rows)


def ptable_csv(rows: list[tuple[int, int, float]]) -> str:
    """The seed: each count's rows tile [0, 2^32) in the order of j, rounded to whole widths."""
    lines = ["i,j,v,p,key_from,key_to"]
    for i in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == i]
        widths = [round(p * KEY_SPACE) for _, _, p in mine]
        widths[-1] = KEY_SPACE - sum(widths[:-1])
        start = 0
        for (_, j, _), width in zip(mine, widths, strict=True):
            lines.append(f"{i},{j},{j - i},{width / KEY_SPACE!r},{start},{start + width}")
            start += width
    return "\n".join(lines) + "\n"
