"""The flagship example, built from the repository root exactly as `make demo` builds it."""

from __future__ import annotations

import json
import os
import re

import pytest
from support import ROOT
from support.cell_fates import cell_fates
from support.commands import kanon_tools_cli
from support.projects import DbtProject
from support.warehouses import Warehouse

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
    project.run("build", "--vars", "{kanon_example_noise: true}")  # as `make demo`: the noisy twin too
    return project, wh


def _mart(wh: Warehouse) -> str:
    return wh.relation(MART, "example")


def test_every_node_of_the_example_build_succeeds(example: tuple[DbtProject, Warehouse]) -> None:
    _, wh = example
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


def _latest_cells(project: DbtProject) -> list[tuple[object, ...]]:
    """Every finest cell of the latest release, with its fate derived from the audit trail."""
    raw = project.warehouse.relation("circulation_events", "example_raw")
    fates = cell_fates(project, MART, f"select branch, age_band, title, count(distinct patron_token) as people "
                                      f"from {raw} group by branch, age_band, title")
    return [(f["cell_labels"], f["people"], f["decision"], f["released_labels"], f["released_levels"],
             f["released_people"]) for f in fates]


def test_released_rows_recount_from_raw_events(example: tuple[DbtProject, Warehouse]) -> None:
    """Recount, from the raw events, the distinct patrons behind every released row (the events of
    the finest cells the audit trail routes to that row): it equals the published count and is
    never below k. Every event belongs to exactly one audited cell."""
    project, wh = example
    events = wh.query(
        f"select patron_token, branch, age_band, title from {wh.relation('circulation_events', 'example_raw')}"
    )
    routes: dict[tuple[str, ...], tuple[object, ...] | None] = {}
    for labels, _people, decision, released_labels, released_levels, _released in _latest_cells(project):
        cell = tuple(json.loads(str(labels)).values())
        assert cell not in routes
        if decision == "SUPPRESS":
            routes[cell] = None
        else:
            released = json.loads(str(released_labels))
            levels = json.loads(str(released_levels))
            routes[cell] = tuple(x for dim in released for x in (released[dim], levels[dim]))
    patrons: dict[tuple[object, ...], set[str]] = {}
    loans: dict[tuple[object, ...], int] = {}
    for token, branch, age_band, title in events:
        route = routes[(branch, age_band, title)]  # every event's cell is audited
        if route is not None:
            patrons.setdefault(route, set()).add(token)
            loans[route] = loans.get(route, 0) + 1
    recount = sorted((*key, len(people), loans[key]) for key, people in patrons.items())
    published = wh.query(
        f"select branch, branch_level, age_band, age_band_level, title, title_level, patrons, loans from {_mart(wh)}"
    )
    assert recount == sorted(published)
    assert all(int(str(row[6])) >= K for row in recount)


def test_most_finest_cells_are_thin_and_all_three_decisions_occur(example: tuple[DbtProject, Warehouse]) -> None:
    project, _ = example
    decisions: dict[object, int] = {}
    for _labels, _people, decision, *_ in _latest_cells(project):
        decisions[decision] = decisions.get(decision, 0) + 1
    assert set(decisions) == {"PASS", "GENERALIZE", "SUPPRESS"}
    assert decisions["GENERALIZE"] + decisions["SUPPRESS"] > decisions["PASS"]


@pytest.fixture(scope="module")
def demo_output(example: tuple[DbtProject, Warehouse]) -> str:
    """What `python -m kanon_tools demo` prints on the example built by `example`."""
    _, wh = example
    done = kanon_tools_cli(["demo", "--target", wh.kind, "--noisy-twin"], {**os.environ, **wh.env()}, ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_demo_command_prints_the_release(demo_output: str) -> None:
    out = demo_output
    assert MART in out
    for decision in ("PASS", "GENERALIZE", "SUPPRESS"):
        assert decision in out
    released_table = out.split("rows released")[0]
    assert "Coping With a Parent" not in released_table
    assert "Coping With a Parent's Incarceration: GENERALIZE,\nreleased as RIVERSIDE | 13-24 | Social Sciences" in out


def readme_demo_block(readme: str) -> str:
    """The fenced block of the README's "What the demo shows": its sample of the demo's output."""
    section = readme.split("\n## What the demo shows\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"^```\n(.*?)^```$", section, re.S | re.M)
    assert block, "the README's demo section has no fenced block"
    return block.group(1)


def test_the_readme_shows_what_the_demo_prints(demo_output: str) -> None:
    """The README's sample is the demo's output on the committed seeds, line for line: a change
    to either (the example, the release, the demo's wording) fails here until the other follows."""
    shown = readme_demo_block((ROOT / "README.md").read_text(encoding="utf-8"))
    assert shown.splitlines() == demo_output.strip("\n").splitlines()
