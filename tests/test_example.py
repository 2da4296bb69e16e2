"""The flagship example, built from the repository root exactly as `make demo` builds it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, DbtProject, Warehouse

pytestmark = pytest.mark.dbt

K = 5
MART = "circulation_by_branch_age_title"
PLANTED_TITLES = (
    "Coping With a Parent's Incarceration",  # one teenager at RIVERSIDE
    "Living With Dementia: A Family Guide",  # two 65+ patrons
    "Leaving an Abusive Relationship",  # one patron at CENTRAL
)


@pytest.fixture(scope="module")
def example(warehouse_kind: str, make_warehouse) -> tuple[DbtProject, Warehouse]:  # type: ignore[no-untyped-def]
    wh = make_warehouse(warehouse_kind, "example")
    project = DbtProject(ROOT, wh)
    project.run("build")
    return project, wh


def _mart(wh: Warehouse) -> str:
    return wh.relation(MART, "example")


def test_every_node_of_the_example_build_succeeds(example: tuple[DbtProject, Warehouse]) -> None:
    project, wh = example
    # the build itself raised on any failure; check the release really holds rows at several levels
    levels = wh.query(f"select distinct title_level from {_mart(wh)} order by 1")
    assert [lvl for (lvl,) in levels][:2] == [0, 1]
    assert wh.query(f"select count(*) from {_mart(wh)} where patrons < {K} or patrons is null") == [(0,)]


def test_planted_thin_cells_never_appear_verbatim(example: tuple[DbtProject, Warehouse]) -> None:
    _, wh = example
    events = wh.relation("circulation_events", "example_raw")
    # the fixtures are really there, and really thin
    cell = wh.query(
        f"select count(distinct patron_token) from {events} "
        "where branch = 'RIVERSIDE' and age_band = '13-17' and title = 'Coping With a Parent''s Incarceration'"
    )
    assert cell == [(1,)]
    for title in PLANTED_TITLES:
        literal = title.replace("'", "''")
        assert wh.query(f"select count(*) from {_mart(wh)} where title = '{literal}'") == [(0,)], title


def test_released_rows_recount_from_raw_events(example: tuple[DbtProject, Warehouse]) -> None:
    """Recount, from the raw events, the distinct patrons behind every released row (the events of
    the finest cells the decisions table routes to that row): it equals the published count and
    is never below k. Every event is routed to exactly one released row or suppressed."""
    _, wh = example
    events = wh.relation("circulation_events", "example_raw")
    decisions = wh.relation(f"{MART}__decisions", "example_audit")
    released_cols = ", ".join(
        f"d.released_{c}, d.released_{c}_level" for c in ("branch", "age_band", "title")
    )
    recount = wh.query(
        f"select {released_cols}, count(distinct e.patron_token), count(*) from {events} as e "
        f"inner join {decisions} as d on d.branch = e.branch and d.age_band = e.age_band and d.title = e.title "
        f"where d.decision <> 'SUPPRESS' group by {released_cols}"
    )
    published = wh.query(
        f"select branch, branch_level, age_band, age_band_level, title, title_level, patrons, loans from {_mart(wh)}"
    )
    assert sorted(recount) == sorted(published)
    assert all(row[6] >= K for row in recount)

    (total,) = wh.query(f"select count(*) from {events}")
    (routed,) = wh.query(
        f"select count(*) from {events} as e inner join {decisions} as d "
        "on d.branch = e.branch and d.age_band = e.age_band and d.title = e.title"
    )
    assert routed == total  # each event belongs to exactly one finest cell


def test_most_finest_cells_are_thin_and_all_three_decisions_occur(example: tuple[DbtProject, Warehouse]) -> None:
    _, wh = example
    decisions = dict(
        wh.query(
            f"select decision, count(*) from {wh.relation(f'{MART}__decisions', 'example_audit')} group by decision"
        )
    )
    assert set(decisions) == {"PASS", "GENERALIZE", "SUPPRESS"}
    assert decisions["GENERALIZE"] + decisions["SUPPRESS"] > decisions["PASS"]


def test_demo_command_prints_the_release(example: tuple[DbtProject, Warehouse]) -> None:
    _, wh = example
    out = subprocess.run(
        [sys.executable, "-m", "kanon_tools", "demo", "--target", wh.kind],
        env={**os.environ, **wh.env()},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert MART in out
    for decision in ("PASS", "GENERALIZE", "SUPPRESS"):
        assert decision in out
    released_table = out.split("rows released")[0]
    assert "Coping With a Parent" not in released_table
    assert "Coping With a Parent's Incarceration: GENERALIZE, released as RIVERSIDE | 13-24 | Social Sciences" in out
