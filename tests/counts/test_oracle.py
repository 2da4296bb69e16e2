"""Fast unit tests of the reference oracle (tests/oracles/counts.py) on hand-worked examples.

No dbt and no warehouse: these pin the oracle to the documented semantics, so that the property
tests (test_release_property.py) can trust it when they compare it with the SQL.
"""

from __future__ import annotations

from collections import Counter

import pytest
from oracles.counts import (
    Event,
    Hierarchy,
    count_star,
    generalize,
    release_counts,
    resolve_ladder,
)

AGE = Hierarchy([("13-17", "13-24", "*"), ("18-24", "13-24", "*")])
BRANCH = Hierarchy([("RIVERSIDE", "SOUTH", "*"), ("CENTRAL", "NORTH", "*")])
TITLE = Hierarchy([("Coping", "Family", "*"), ("Coping2", "Family", "*"), ("Pop", "Fiction", "*")])
DIMS = ["branch", "age", "title"]
HIERARCHIES = {"branch": BRANCH, "age": AGE, "title": TITLE}


def ev(pu: str | None, *values: str | None, **extra: str | None) -> Event:
    event: dict[str, str | None] = {"pu": pu, **dict(zip(DIMS, values, strict=True))}
    event.update(extra)
    return event


WORKED_EVENTS = [
    ev("p1", "RIVERSIDE", "13-17", "Coping"),
    ev("p2", "RIVERSIDE", "18-24", "Coping2"),
    ev("p3", "CENTRAL", "13-17", "Pop"),
    ev("p4", "CENTRAL", "13-17", "Pop"),
    ev("p5", "CENTRAL", "13-17", "Pop"),
    ev("p1", "CENTRAL", "13-17", "Pop"),
    ev("p1", "CENTRAL", "13-17", "Pop"),
    ev("p6", "CENTRAL", "18-24", "Pop"),
    ev("p7", "CENTRAL", "18-24", "Pop"),
    ev("p8", "CENTRAL", "18-24", "Unknown"),
    ev("p9", None, "18-24", "Pop"),
]


def test_worked_example() -> None:
    release = release_counts(
        WORKED_EVENTS, "pu", DIMS, HIERARCHIES, k=2, measures={"loans": count_star}, remainder=True
    )
    assert release.columns == (
        "branch", "branch_level", "age", "age_level", "title", "title_level", "people", "loans",
    )
    assert Counter(release.output()) == Counter(
        [
            ("*", 2, "*", 2, "*", 2, 2, 2),
            ("CENTRAL", 0, "13-17", 0, "Pop", 0, 4, 5),
            ("CENTRAL", 0, "18-24", 0, "Pop", 0, 2, 2),
            ("SOUTH", 1, "13-24", 1, "Family", 1, 2, 2),
        ]
    )
    # The remainder is empty (everyone was released somewhere), so no remainder row.
    assert release.remainder is None
    assert release.suppressed == [] and release.dropped == []


def test_worked_example_fates() -> None:
    release = release_counts(WORKED_EVENTS, "pu", DIMS, HIERARCHIES, k=2, measures={"loans": count_star})
    by_key = {row.as_tuple()[:6]: i for i, row in enumerate(release.rows)}
    expected = {
        ("CENTRAL", 0, "13-17", 0, "Pop", 0): [2, 3, 4, 5, 6],
        ("CENTRAL", 0, "18-24", 0, "Pop", 0): [7, 8],
        ("SOUTH", 1, "13-24", 1, "Family", 1): [0, 1],
        ("*", 2, "*", 2, "*", 2): [9, 10],
    }
    for key, events in expected.items():
        assert release.events_of(by_key[key]) == events
    steps = {key: release.rows[i].step for key, i in by_key.items()}
    # Default ladder: 0 (0,0,0) 1 (1,0,0) 2 (1,1,0) 3 (1,1,1) 4 (2,1,1) 5 (2,2,1) 6 (2,2,2)
    assert steps == {
        ("CENTRAL", 0, "13-17", 0, "Pop", 0): 0,
        ("CENTRAL", 0, "18-24", 0, "Pop", 0): 0,
        ("SOUTH", 1, "13-24", 1, "Family", 1): 3,
        ("*", 2, "*", 2, "*", 2): 6,
    }


def test_default_ladder_raises_the_least_generalized_share_first() -> None:
    """Each step raises the dimension whose level / depth after the step is smallest, ties to the
    first declared: a depth-3 hierarchy takes 1/3 before a depth-2 one takes 1/2."""
    assert resolve_ladder(["a", "b", "c"], [2, None, 3], None) == [
        (0, 0, 0),
        (0, 0, 1),  # c: 1/3
        (1, 0, 1),  # a: 1/2 (c would be 2/3)
        (1, 0, 2),  # c: 2/3
        (2, 0, 2),  # a: 1 ties c: 1, a declared first
        (2, 0, 3),
    ]
    assert resolve_ladder(["a", "b"], [None, None], None) == [(0, 0)]
    # equal depths: round-robin in declared order
    assert resolve_ladder(["a", "b"], [2, 2], None) == [(0, 0), (1, 0), (1, 1), (2, 1), (2, 2)]
    # 4 and 2: a's 1/4 and 2/4 come before b's 1/2 only when strictly smaller
    assert resolve_ladder(["b", "a"], [2, 4], None) == [
        (0, 0), (0, 1), (1, 1), (1, 2), (1, 3), (2, 3), (2, 4),
    ]


def test_custom_ladder_is_cumulative_and_skips_repeats() -> None:
    ladder = [{"a": 1}, {"A": 1}, {"c": 2}, {"a": 0}, {"a": 0, "c": 2}]
    assert resolve_ladder(["a", "b", "c"], [2, None, 3], ladder) == [
        (0, 0, 0),
        (1, 0, 0),
        (1, 0, 2),
        (0, 0, 2),
    ]
    # A first step of zeros is the PASS step again: skipped.
    assert resolve_ladder(["a"], [1], [{"a": 0}, {"a": 1}]) == [(0,), (1,)]


@pytest.mark.parametrize(
    "ladder",
    [
        [{}],
        [{"nope": 1}],
        [{"b": 1}],  # no hierarchy
        [{"a": 3}],  # deeper than the hierarchy
        [{"a": -1}],
        [{"a": True}],
    ],
)
def test_bad_ladders_are_refused(ladder: list[dict[str, int]]) -> None:
    with pytest.raises(ValueError):
        resolve_ladder(["a", "b"], [2, None], ladder)


def test_generalize() -> None:
    assert generalize("Pop", TITLE, 0) == ("Pop", 0)
    assert generalize("Pop", TITLE, 1) == ("Fiction", 1)
    assert generalize("Pop", TITLE, 2) == ("*", 2)
    # NULL and values missing from the hierarchy go to its root, at its depth, at every level.
    assert generalize(None, TITLE, 0) == ("*", 2)
    assert generalize("Unknown", TITLE, 1) == ("*", 2)
    assert generalize("pop", TITLE, 0) == ("*", 2)  # compared exactly
    # Without a hierarchy: NULL is the root '*' at level 1, a literal '*' stays at level 0.
    assert generalize(None, None, 0) == ("*", 1)
    assert generalize("*", None, 0) == ("*", 0)
    with pytest.raises(ValueError):
        generalize("x", None, 1)


def test_hierarchy_validation() -> None:
    with pytest.raises(ValueError):
        Hierarchy([])
    with pytest.raises(ValueError):
        Hierarchy([("a",)])
    with pytest.raises(ValueError):
        Hierarchy([("a", "*"), ("a", "*")])  # repeated leaf
    with pytest.raises(ValueError):
        Hierarchy([("a", "*"), ("b", "ROOT")])  # two roots
    with pytest.raises(ValueError):
        Hierarchy([("a", "x", "*"), ("b", "*")])  # ragged
    assert Hierarchy([("a", "a", "*")]).depth == 2


def test_flat_dimension_null_and_star_are_different_cells() -> None:
    events: list[Event] = [
        {"pu": "p1", "d": None},
        {"pu": "p2", "d": None},
        {"pu": "p3", "d": "*"},
        {"pu": "p4", "d": "*"},
    ]
    release = release_counts(events, "pu", ["d"], k=2)
    assert Counter(release.output()) == Counter([("*", 1, 2), ("*", 0, 2)])


def test_null_policy_suppress_drops_events_everywhere() -> None:
    events = [
        ev("p1", "CENTRAL", "13-17", "Pop"),
        ev("p2", "CENTRAL", "13-17", "Pop"),
        ev("p3", None, "13-17", "Pop"),
        ev("p4", "CENTRAL", "13-17", None),
        ev("p5", "RIVERSIDE", "18-24", "Coping"),
    ]
    root = release_counts(events, "pu", DIMS, HIERARCHIES, k=2, remainder=True)
    # With 'root', p3 and p4 end together at (*, *, *) with p5 after the full climb.
    assert Counter(root.output()) == Counter(
        [("CENTRAL", 0, "13-17", 0, "Pop", 0, 2), ("*", 2, "*", 2, "*", 2, 3)]
    )
    suppress = release_counts(
        events, "pu", DIMS, HIERARCHIES, k=2, null_policy="suppress", remainder=True
    )
    # With 'suppress', p3 and p4 are gone: p5 alone is suppressed, and the remainder (1) is too small.
    assert suppress.output() == [("CENTRAL", 0, "13-17", 0, "Pop", 0, 2)]
    assert suppress.dropped == [2, 3]
    assert suppress.suppressed == [4]


def test_remainder_row_counts_the_suppressed_set() -> None:
    events: list[Event] = [
        {"pu": "p1", "d": "a"},
        {"pu": "p2", "d": "b"},
        {"pu": "p3", "d": "c"},
        {"pu": "p3", "d": "c"},
        {"pu": "p4", "d": "x"},
        {"pu": "p5", "d": "x"},
    ]
    # Flat dimension: only the PASS step. With k=3 every cell is thin: 5 people, 6 events.
    release = release_counts(events, "pu", ["d"], k=3, measures={"n": count_star}, remainder=True)
    assert release.output() == [(None, None, 5, 6)]
    assert release.remainder is not None and release.rows == ()
    assert release.suppressed == [0, 1, 2, 3, 4, 5]
    # With k=2, x is released and a, b, c (3 people, 4 events) make the remainder.
    release = release_counts(events, "pu", ["d"], k=2, measures={"n": count_star}, remainder=True)
    assert release.output() == [("x", 0, 2, 2), (None, None, 3, 4)]
    assert release.suppressed == [0, 1, 2, 3]
    # With k=6 the remainder (5 people) is itself too small.
    release = release_counts(events, "pu", ["d"], k=6, remainder=True)
    assert release.output() == []


def test_count_rows_counts_events_and_null_units_count_as_nobody() -> None:
    events: list[Event] = [
        {"pu": "p1", "d": "a"},
        {"pu": "p1", "d": "a"},
        {"pu": None, "d": "a"},
        {"pu": None, "d": "b"},
        {"pu": None, "d": "b"},
    ]
    people = release_counts(events, "pu", ["d"], k=2, measures={"n": count_star}, remainder=True)
    assert people.output() == []  # 'a' has one person, 'b' none; the remainder has one person
    rows = release_counts(events, None, ["d"], k=2, count_rows=True, count_column="rows")
    assert rows.columns == ("d", "d_level", "rows")
    assert Counter(rows.output()) == Counter([("a", 0, 3), ("b", 0, 2)])


def test_same_key_can_be_released_at_two_steps() -> None:
    # At step 0 the two values missing from the hierarchy are (*, 1) and released; at step 1 the
    # leaves regroup under the same root label and are released again, as a second row.
    h = Hierarchy([("a", "*"), ("b", "*")])
    events: list[Event] = [
        {"pu": "p1", "d": "zz"},
        {"pu": "p2", "d": None},
        {"pu": "p3", "d": "a"},
        {"pu": "p4", "d": "b"},
    ]
    release = release_counts(events, "pu", ["d"], {"d": h}, k=2)
    assert release.output() == [("*", 1, 2), ("*", 1, 2)]
    assert [row.step for row in release.rows] == [0, 1]
    assert [f.row for f in release.fates] == [0, 0, 1, 1]


def test_every_event_has_exactly_one_fate_and_rows_recount_to_at_least_k() -> None:
    release = release_counts(WORKED_EVENTS[:-1], "pu", DIMS, HIERARCHIES, k=3, remainder=True)
    assert len(release.fates) == len(WORKED_EVENTS) - 1
    for i, row in enumerate(release.rows):
        units = {WORKED_EVENTS[e]["pu"] for e in release.events_of(i)}
        assert len(units) == row.count >= 3
    released = sum(len(release.events_of(i)) for i in range(len(release.rows)))
    assert released + len(release.suppressed) == len(WORKED_EVENTS) - 1


def test_argument_checks() -> None:
    with pytest.raises(ValueError):
        release_counts([], "pu", ["d"], k=1)
    with pytest.raises(ValueError):
        release_counts([], "pu", ["d"], k=True)
    with pytest.raises(ValueError):
        release_counts([], "pu", [], k=2)
    with pytest.raises(ValueError):
        release_counts([], "pu", ["d", "D"], k=2)
    with pytest.raises(ValueError):
        release_counts([], None, ["d"], k=2)
    with pytest.raises(ValueError):
        release_counts([], "pu", ["d"], {"e": AGE}, k=2)
