"""Releases over time (issue 15, ADR 12): a nightly report over growing events, on both warehouses.

integration_tests/models/release/release_nightly.sql releases people per branch and title (k=3,
with an events measure and the remainder row) from a table this test writes and adds to, counting
only events at least two days old as of KANON_NIGHTLY_AS_OF (an environment variable: a var
changed every night would cost a parse of the whole project a night). The script:

    night 1 (as of 11-25)  10 people borrowed Atlas at CENTRAL, 3 at EAST, 1 borrowed Rare at
                           EAST: CENTRAL/Atlas 10 and EAST/Atlas 3 are published
    the known event        p99 borrows Atlas at CENTRAL on 11-25 at 09:00; a watcher knows it
    night 2 (as of 11-26)  the event is under two days old: not counted, nothing changes
    night 3 (as of 11-28)  counted: CENTRAL/Atlas has 11 people. With on_small_change='report'
                           the mart says 11 (the difference with night 1 is p99), and the trail and
                           a warning say so; with 'hold' the mart still says 10 (and 10 events),
                           the trail keeps 11 next to the 10 shown
    night 4 (as of 11-30)  two more people at CENTRAL and two more for Rare at EAST (from 11-27):
                           CENTRAL/Atlas 13 is 3 = k from what was shown, and is published;
                           EAST/Rare reaches 3 and appears (counted, not held)
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from kanon_tools import receipt
from support import INTEGRATION
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

AUDIT = "kanon_audit"
NIGHT_1 = [*((f"p{i}", "CENTRAL", "Atlas") for i in range(10)), *((f"q{i}", "EAST", "Atlas") for i in range(3)),
           ("r0", "EAST", "Rare")]
KNOWN_EVENT = ("p99", "CENTRAL", "Atlas", "2026-11-25 09:00:00")
NIGHT_4 = [("p100", "CENTRAL", "Atlas"), ("p101", "CENTRAL", "Atlas"), ("r1", "EAST", "Rare"), ("r2", "EAST", "Rare")]
SUMMARY = "rows_released, rows_compared, rows_changed_small, rows_held, rows_appeared, rows_disappeared"


class Nightly:
    """One warehouse, the integration project, and the nightly events table."""

    def __init__(self, project: DbtProject, wh: Warehouse, mode: str) -> None:
        self.project, self.wh, self.mode = project, wh, mode
        self.events = f'"{wh.schema}".nightly_events'
        self.outputs: list[str] = []
        self.marts: list[list[tuple[Any, ...]]] = []

    def add(self, rows: list[tuple[str, str, str, str]]) -> None:
        values = ", ".join("(" + ", ".join(f"'{v}'" for v in row) + ")" for row in rows)
        self.wh.execute(f"insert into {self.events} values {values}")

    def release(self, as_of: str, *extra: str) -> None:
        variables = json.dumps({"kanon_nightly": True, "nightly_on_small_change": self.mode})
        os.environ["KANON_NIGHTLY_AS_OF"] = as_of  # read into the warehouse's environment for this run
        try:
            result = self.project.run("run", "--select", "release_nightly", *extra, "--vars", variables)
        finally:
            del os.environ["KANON_NIGHTLY_AS_OF"]  # the other modules' runs are not nightly
        self.outputs.append(result.output)
        self.marts.append(self.mart())  # what readers saw after this night

    def mart(self) -> list[tuple[Any, ...]]:
        return sorted(self.wh.query(f"select branch, title, people, events from {self.wh.relation('release_nightly')}"))

    def summaries(self) -> list[tuple[Any, ...]]:
        return self.wh.query(f"select {SUMMARY} from {self.wh.relation('kanon_audit_releases', AUDIT)} "
                             "where report = 'release_nightly' order by released_at")

    def groups(self, night: int) -> dict[str, tuple[Any, ...]]:
        """The published groups of the night-th release: {branch/title: (people, people_shown)}."""
        releases = self.wh.relation("kanon_audit_releases", AUDIT)
        [(invocation,)] = self.wh.query(
            f"select invocation_id from {releases} where report = 'release_nightly' order by released_at "
            f"limit 1 offset {night - 1}")
        groups = self.wh.relation("kanon_audit_groups", AUDIT)
        rows = self.wh.query(f"select labels, people, people_shown from {groups} "
                             f"where invocation_id = '{invocation}' and decision <> 'SUPPRESS'")
        out = {}
        for labels, people, shown in rows:
            parsed = json.loads(labels) if labels else {"branch": None, "title": None}
            out[f"{parsed['branch']}/{parsed['title']}"] = (people, shown)
        return out


def _first_night(warehouse_kind: str, make_warehouse: Any, mode: str, tag: str) -> Nightly:
    """A fresh warehouse with the events of night 1, released as of 11-25."""
    wh = make_warehouse(warehouse_kind, tag)
    project = DbtProject(INTEGRATION, wh)
    project.run("deps")
    wh.execute(f'create schema if not exists "{wh.schema}"')
    night = Nightly(project, wh, mode)
    wh.execute(f"create table {night.events} (person varchar(20), branch varchar(20), title varchar(40), "
               "happened_at timestamp)")
    night.add([(*row, "2026-11-20 10:00:00") for row in NIGHT_1])
    night.release("2026-11-25", "package:kanon,path:models/audit")
    return night


def _script(warehouse_kind: str, make_warehouse: Any, mode: str) -> Nightly:
    """The four nights of the module docstring."""
    night = _first_night(warehouse_kind, make_warehouse, mode, f"night_{mode}")
    night.add([KNOWN_EVENT])
    night.release("2026-11-26")
    night.release("2026-11-28")
    night.add([(*row, "2026-11-27 12:00:00") for row in NIGHT_4])
    night.release("2026-11-30")
    return night


@pytest.fixture(scope="module")
def reported(warehouse_kind: str, make_warehouse: Any) -> Nightly:
    return _script(warehouse_kind, make_warehouse, "report")


@pytest.fixture(scope="module")
def held(warehouse_kind: str, make_warehouse: Any) -> Nightly:
    return _script(warehouse_kind, make_warehouse, "hold")


def test_the_delay_keeps_a_recent_event_out(reported: Nightly) -> None:
    summaries = reported.summaries()
    # night 2: the known event is a day old, nothing is counted anew
    assert summaries[1] == (2, 2, 0, 0, 0, 0)


def test_without_hold_the_one_person_change_is_published_and_reported(reported: Nightly) -> None:
    summaries = reported.summaries()
    assert summaries[0] == (2, 0, 0, 0, None, None)  # a first release compares with nothing
    assert summaries[2] == (2, 2, 1, 0, 0, 0)  # CENTRAL/Atlas changed by one person
    assert reported.groups(3)["CENTRAL/Atlas"] == (11, 11)
    assert "1 of 2 row(s) published before changed by 1 to 2 people" in reported.outputs[2]
    assert "on_small_change='hold'" in reported.outputs[2]


def test_with_hold_the_change_is_held_until_it_reaches_k(held: Nightly) -> None:
    summaries = held.summaries()
    assert summaries[2] == (2, 2, 1, 1, 0, 0)
    # the trail keeps the true count next to the one shown
    assert held.groups(3)["CENTRAL/Atlas"] == (11, 10)
    assert "1 row(s) are held at their previous value" in held.outputs[2]
    # night 4: 13 people is 3 = k more than shown: published, nothing held; Rare appears
    assert summaries[3] == (3, 2, 0, 0, 1, 0)
    assert held.groups(4)["CENTRAL/Atlas"] == (13, 13)
    assert held.mart() == [("CENTRAL", "Atlas", 13, 13), ("EAST", "Atlas", 3, 3), ("EAST", "Rare", 3, 3)]


def test_a_held_mart_keeps_the_previous_count_and_measures(held: Nightly, reported: Nightly) -> None:
    # after night 3, where the known event is counted: the held mart shows night 1's count and
    # events, the reported one the change
    assert held.marts[2] == held.marts[0] == [("CENTRAL", "Atlas", 10, 10), ("EAST", "Atlas", 3, 3)]
    assert reported.marts[2] == [("CENTRAL", "Atlas", 11, 11), ("EAST", "Atlas", 3, 3)]
    assert held.groups(2)["CENTRAL/Atlas"][1] == held.groups(3)["CENTRAL/Atlas"][1] == 10


def test_the_receipt_says_what_changed_since_before(held: Nightly) -> None:
    emitted = held.project.runner().run_operation("kanon.cli_release_receipt", {"report": "release_nightly"})
    out = receipt.receipt(emitted)
    # the latest release (night 4): two rows compared, none changed by less than k, Rare appeared
    assert out["changes"] == {"rows_compared": 2, "rows_changed_small": 0, "rows_held": 0, "rows_appeared": 1,
                              "rows_disappeared": 0}
    assert "since before  rows_compared 2, rows_changed_small 0, rows_held 0" in receipt.render_text(out)
    night_3 = held.wh.query(f"select invocation_id from {held.wh.relation('kanon_audit_releases', AUDIT)} "
                            "where report = 'release_nightly' and rows_held = 1")
    emitted = held.project.runner().run_operation("kanon.cli_release_receipt",
                                                  {"report": "release_nightly", "invocation_id": night_3[0][0]})
    assert "1 row(s) changed by 1 to k-1 people since the previous release; 1 held" in receipt.receipt(emitted)[
        "what_was_done"]
