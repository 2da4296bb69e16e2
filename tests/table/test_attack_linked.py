"""The attacker's audit of linked reports (kanon_tools.attack_report.audit_many, issue 12's
overlapping slices): tables released from the same events that share a dimension share their
margins, and an attacker reads them together. Two tables each safe alone that give a cell away
together, the same pair with matching patterns, reports that disagree, three reports, protection
widths per report, one report as before, and the command line (dbt replaced by the emitted dicts)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import Any, cast

import pytest
from kanon_tools import attack_report
from kanon_tools.attack import Finding, InconsistentTable, Key, Status
from kanon_tools.cli import attack as attack_cli
from support.attack_tables import WORKED, Dim, Event, emit, one_each, three_d, worked_emitted

K = 5
DAY = Dim("day", ("Mon", "Tue", "Wed", "Thu", "Fri"))
KIND = Dim("kind", ("views", "saves"))
BRANCH = Dim("branch", ("north", "south"))
AGE = Dim("age", ("young", "old"))
SLICES = (KIND, BRANCH, AGE)  # each person's leaf in every one, after the day

# Thursday has three people: views 1, saves 2; north 2, south 1; young 1, old 2. Every other
# day's cell of any slice is at least 8.
LEAVES: dict[tuple[str | None, ...], int] = {
    (day, kind, branch, age): 2 + (i + j + 2 * m + 3 * n) % 4
    for i, day in enumerate(DAY.leaves) if day != "Thu"
    for j, kind in enumerate(KIND.leaves) for m, branch in enumerate(BRANCH.leaves) for n, age in enumerate(AGE.leaves)}
LEAVES |= {("Thu", "views", "north", "young"): 1, ("Thu", "saves", "north", "old"): 1,
           ("Thu", "saves", "south", "old"): 1}
EVENTS = one_each(LEAVES)


def day_total(day: str | None) -> Key:
    """A day's total in any day x slice table (the grand total for None), by that table's own key."""
    return (("0", json.dumps(day)) if day else ("1", '"Total"')) + ("1", '"Total"')


def release(name: str, dim: Dim, second: str, events: Sequence[Event] = EVENTS, k: int = K) -> dict[str, Any]:
    """The day x `dim` table of `events` as kanon.cli_table_cells emits it: every count under k
    (Thursday's row) a primary, and the whole row of the day `second` hidden as secondaries, so
    the two hidden rows make a block in which each alone is safe."""
    at = 1 + SLICES.index(dim)

    def status(key: Key, value: int) -> Status:
        if 0 < value < k:
            return Status.PRIMARY
        return Status.SECONDARY if key[:2] == ("0", json.dumps(second)) else Status.PUBLISHED

    emitted, _ = emit([DAY, dim], [(who, (leaves[0], leaves[at])) for who, leaves in events], status, k)
    return dict(emitted, relation=name)


def exact(found: Sequence[Finding], linked: attack_report.Linked) -> list[str]:
    """The exact findings, each as every report and cell it is."""
    return [linked.describe(f.key) for f in found if f.reason == "exact"]


def test_a_pair_safe_alone_gives_a_total_away_together() -> None:
    """A hides Thu and Fri in its day totals, B Thu and Wed: B publishes Fri's total, so A's Thu
    total is the grand total minus the others, and it is B's Thu total too."""
    a, b = release("A", KIND, second="Fri"), release("B", BRANCH, second="Wed")
    for alone in (a, b):
        cells, found = attack_report.audit(alone)
        assert found == []
        assert cells[day_total("Thu")].status is Status.PRIMARY
        assert attack_report.audit_many([alone])[1] == []
    linked, found = attack_report.audit_many([a, b])
    assert [(f.key, f.reason, f.status) for f in found] == [(("day", "0", '"Thu"'), "exact", Status.PRIMARY)]
    assert found[0].low == pytest.approx(3)
    assert exact(found, linked) == ["A: Thu x Total (total) (primary) = B: Thu x Total (total) (primary)"]
    assert linked.where[found[0].key] == [(0, day_total("Thu")), (1, day_total("Thu"))]
    # the order the reports are given in changes nothing but the naming
    again, found_again = attack_report.audit_many([b, a])
    assert exact(found_again, again) == ["B: Thu x Total (total) (primary) = A: Thu x Total (total) (primary)"]


def test_matching_patterns_are_safe_together() -> None:
    a, b = release("A", KIND, second="Fri"), release("B", BRANCH, second="Fri")
    linked, found = attack_report.audit_many([a, b])
    assert found == []
    # the six day totals are one quantity each, the rest of each table its own
    assert len(linked.cells) == 18 + 18 - 6
    assert sorted(len(places) for places in linked.where.values()).count(2) == 6
    assert len(linked.limits) == 2 + 4 + 4  # Thu's and Fri's totals, and each table's four interior cells
    lines = attack_report.report_many(linked, found)
    assert lines[2] == ("linked: 30 quantities (6 in more than one report), 10 hidden in every report that has "
                        "them (0 hidden in one and published in another); 0 exact disclosure(s)")


def test_each_quantity_is_held_to_the_widest_width_its_reports_promised() -> None:
    """Thursday's total is 2..4 together (two primaries of at least 1 under it in each table):
    too narrow for the 3 that A promised, though B promised nothing. Every hidden cell of A is
    2 wide, so all six are found, and none of B's own."""
    a, b = release("A", KIND, second="Fri"), release("B", BRANCH, second="Fri")
    a["protection"] = 3
    linked, found = attack_report.audit_many([a, b])
    assert {f.reason for f in found} == {"narrow"}
    named = {(i, key) for f in found for i, key in linked.where[f.key]}
    hidden_a = {key for key, cell in linked.reports[0].cells.items() if cell.value is None}
    assert {key for i, key in named if i == 0} == hidden_a
    assert {key for i, key in named if i == 1} == {day_total("Thu"), day_total("Fri")}  # shared with A
    assert "A: Thu x Total (total) (primary) = B: Thu x Total (total) (primary)" in [
        linked.describe(f.key) for f in found]
    assert attack_report.report_many(linked, found)[2].endswith(
        "0 exact disclosure(s), 6 narrower than its reports' widest (A 3, B 0)")
    # asked for on the command line, the width holds B's own cells too
    linked, found = attack_report.audit_many([a, b], protection=3)
    assert len(found) == 6 + 4
    assert attack_report.report_many(linked, found)[2].endswith("10 narrower than 3")


def test_each_report_bounds_what_it_hides_by_its_own_k() -> None:
    """Thursday's total is 1..4 under A's k of 5 and 1..3 under C's of 4: together it is held to
    both, which narrows A's own cells below a width of 2 that A alone keeps."""
    a, c = release("A", KIND, second="Fri"), release("C", AGE, second="Fri", k=4)
    assert attack_report.audit_many([a], 2)[1] == []
    linked, found = attack_report.audit_many([a, c], 2)
    assert linked.limits[("day", "0", '"Thu"')] == (1.0, 3.0)
    assert {f.reason for f in found} == {"narrow"}
    only_a = {key for f in found for i, key in linked.where[f.key] if i == 0 and len(linked.where[f.key]) == 1}
    assert only_a == {key for key, cell in linked.reports[0].cells.items()
                      if cell.value is None and key not in (day_total("Thu"), day_total("Fri"))}


def _moved() -> list[Event]:
    """EVENTS with one person moved from Monday to Tuesday: Monday's and Tuesday's totals change."""
    events = list(EVENTS)
    i = next(i for i, (_, leaves) in enumerate(events) if leaves[0] == "Mon")
    who, leaves = events[i]
    events[i] = (who, ("Tue", *leaves[1:]))
    return events


def _remark(emitted: dict[str, Any], key: Key, status: Status) -> dict[str, Any]:
    """The emitted table with the cell `key` marked `status` (its count dropped when hidden)."""
    for cell in emitted["cells"]:
        if tuple(x for label, level, _ in cell[0] for x in (str(level), json.dumps(label))) == key:
            cell[1], cell[2] = (None, status.value) if status is not Status.PUBLISHED else (cell[1], status.value)
    return emitted


@pytest.mark.parametrize(("a", "b", "message"), [
    (release("A", KIND, "Fri"), release("B", BRANCH, "Fri", events=_moved()),
     r"disagree on A: Mon x Total \(total\) \(published\) = B: Mon x Total \(total\) \(published\) "
     r"\(and 1 other quantity\): not released from the same events"),
    # hidden in both, as 1..4 in one and at least 5 in the other
    (release("A", KIND, "Fri"), _remark(release("B", BRANCH, "Fri"), day_total("Thu"), Status.SECONDARY),
     r"disagree on A: Thu x Total \(total\) \(primary\) = B: Thu x Total \(total\) \(secondary\): "),
    # published in one, and a count the other's mark rules out
    (_remark(release("A", KIND, "Fri"), day_total("Mon"), Status.PRIMARY), release("B", BRANCH, "Fri"),
     r"disagree on A: Mon x Total \(total\) \(primary\) = B: Mon x Total \(total\) \(published\): "),
], ids=["two-counts", "two-marks", "count-and-mark"])
def test_reports_that_disagree_on_a_shared_margin(a: dict[str, Any], b: dict[str, Any], message: str) -> None:
    for alone in (a, b):
        attack_report.table(alone)  # each is one table
    with pytest.raises(InconsistentTable, match=message):
        attack_report.audit_many([a, b])


def test_a_report_that_is_not_one_table_is_named() -> None:
    broken = release("B", BRANCH, "Fri")
    broken["cells"] = broken["cells"][1:]
    missing = r"^B contradicts itself: the table does not publish the cell Mon x north$"
    with pytest.raises(InconsistentTable, match=missing):
        attack_report.audit_many([release("A", KIND, "Fri"), broken])
    cased = release("B", BRANCH, "Fri")
    cased["dimensions"][1]["name"] = "DAY"
    with pytest.raises(InconsistentTable, match=r"^B has dimensions whose names differ only in case"):
        attack_report.audit_many([release("A", KIND, "Fri"), cased])


def test_three_reports() -> None:
    """Three slices of one day column: with matching patterns nothing; when only the third hides
    another day, it gives Thursday away, as one quantity of all three."""
    a, b = release("A", KIND, "Fri"), release("B", BRANCH, "Fri")
    linked, found = attack_report.audit_many([a, b, release("C", AGE, "Fri")])
    assert found == []
    assert len(linked.cells) == 3 * 18 - 2 * 6
    assert sorted(len(places) for places in linked.where.values())[-6:] == [3] * 6
    linked, found = attack_report.audit_many([a, b, release("C", AGE, "Mon")])
    assert exact(found, linked) == [
        "A: Thu x Total (total) (primary) = B: Thu x Total (total) (primary) = C: Thu x Total (total) (primary)"]
    assert len(found) == 1


ROWS = cast("dict[str, list[int | str]]", WORKED)


@pytest.mark.parametrize("emitted", [
    worked_emitted(ROWS), worked_emitted(dict(ROWS, Tue=[38, "<5", 5, 46])),
    three_d()[0], three_d(shown=[("0", '"a2"', "0", '"y1"', "0", '"f"')])[0],
    dict(worked_emitted(ROWS), protection=2.5),
], ids=["worked", "worked-weakened", "3d", "3d-shown", "worked-promised"])
@pytest.mark.parametrize("protection", [0.0, 2.5])
def test_one_report_finds_what_the_single_report_audit_finds(emitted: dict[str, Any], protection: float) -> None:
    _, before = attack_report.audit(emitted, attack_report.width(emitted, protection))
    linked, found = attack_report.audit_many([emitted], protection)
    assert all(len(linked.where[f.key]) == 1 for f in found)
    got = {linked.where[f.key][0][1]: (f.reason, f.status) for f in found}
    assert got == {f.key: (f.reason, f.status) for f in before}
    for f in found:
        old = next(b for b in before if b.key == linked.where[f.key][0][1])
        assert (f.low, f.high) == pytest.approx((old.low, old.high))


def test_the_command_line_takes_several_reports(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    attack_cli.register(parser.add_subparsers())
    args = parser.parse_args(["attack", "--report", "A", "--report", "B", "--protection", "2"])
    assert (args.report, args.protection, args.func) == (["A", "B"], 2.0, attack_report.run_attack)
    assert parser.parse_args(["attack", "--report", "A"]).report == ["A"]
    with pytest.raises(SystemExit) as missing:
        parser.parse_args(["attack"])
    assert missing.value.code == 2

    published = {"A": release("A", KIND, "Fri"), "B": release("B", BRANCH, "Wed")}
    read: list[str] = []

    def operation(_: argparse.Namespace, command: str, macro: str, macro_args: Mapping[str, Any]) -> Any:
        assert (command, macro) == ("attack", attack_report.MACRO)
        read.append(macro_args["report"])
        return published[macro_args["report"]]

    monkeypatch.setattr(attack_report, "cli_operation", operation)
    assert attack_report.run_attack(parser.parse_args(["attack", "--report", "A", "--report", "B"])) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        "A: 18 cells and totals, 6 hidden (3 primary, 3 secondary)",
        "B: 18 cells and totals, 6 hidden (3 primary, 3 secondary)",
        "linked: 30 quantities (6 in more than one report), 9 hidden in every report that has them "
        "(2 hidden in one and published in another); 1 exact disclosure(s)",
        "  EXACT  A: Thu x Total (total) (primary) = B: Thu x Total (total) (primary)"]
    assert "FAIL: 1 hidden quantity of A, B can be worked out exactly from what they publish together" in err
    assert read == ["A", "B"]
    # one report, or one named twice: the single-report audit, read once
    read.clear()
    assert attack_report.run_attack(parser.parse_args(["attack", "--report", "A", "--report", "A"])) == 0
    out, _ = capsys.readouterr()
    assert out.splitlines() == ["A: 18 cells and totals, 6 hidden (3 primary, 3 secondary); 0 exact disclosure(s)",
                                "OK: no hidden cell of A can be worked out exactly from what it publishes"]
    assert read == ["A"]
    # reports that disagree: one line, exit 1
    published["B"] = release("B", BRANCH, "Fri", events=_moved())
    assert attack_report.run_attack(parser.parse_args(["attack", "--report", "A", "--report", "B"])) == 1
    _, err = capsys.readouterr()
    assert err.startswith("kanon attack: the reports disagree on A: Mon x Total (total)")
    assert len(err.splitlines()) == 1
