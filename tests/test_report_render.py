"""kanon_tools.report's page from what kanon.cli_report emits, without a warehouse: a hidden cell
shows its mark whatever count reaches it, a suppressed total below k is `< k`, a refusal is one
highlighted row with its check, and the page links nothing outside itself."""

from __future__ import annotations

import json

from kanon_tools import report

RELEASES = [
    {"report": "m", "report_unique_id": "model.p.m", "invocation_id": "i1", "released_at": "2026-01-01 10:00:00",
     "status": "RELEASED", "release_kind": "counts", "k": 10, "rows_released": 3, "people_suppressed": 7,
     "suppression_rate": "0.25", "rows_changed_small": 0, "rows_held": 0,
     "release_plan": json.dumps({"dimensions": [{"name": "age", "depth": 2}], "ladder": [[0], [1], [2]]})},
    {"report": "m", "report_unique_id": "model.p.m", "invocation_id": "i2", "released_at": "2026-01-02 10:00:00",
     "status": "REFUSED", "failed_check": "min_count", "release_kind": "counts", "k": 10},
    {"report": "t", "report_unique_id": "model.p.t", "invocation_id": "i3", "released_at": "2026-01-02 11:00:00",
     "status": "RELEASED", "release_kind": "table", "k": 10, "rows_released": 4, "people_suppressed": 0,
     "release_plan": json.dumps({"protection": 3})},
]
# a grid as no mart holds it: a count beside a hidden status must still not be shown
GRID = {"report_unique_id": "model.p.t", "dimensions": ["day", "action"], "count_column": "people",
        "cells": [[[["Mon", 0], ["Views", 0]], 4321, "primary"], [[["Mon", 0], ["Saves", 0]], 8765, "secondary"],
                  [[["Mon", 0], ["Total", 1]], 120, "published"]]}


def test_the_page_marks_hidden_cells_and_refusals_and_hides_small_totals() -> None:
    page = report.render({"relation": "trail", "releases": RELEASES, "tables": [GRID],
                          "decisions": [{"invocation_id": "i1", "report_unique_id": "model.p.m", "decision": "SUPPRESS",
                                         "ladder_step": 2, "groups": 1, "people": None}]})
    assert "4321" not in page and "8765" not in page and ">120<" in page
    assert '<td class="hidden primary">PRIMARY</td>' in page and '<td class="hidden secondary">SECONDARY</td>' in page
    assert "<td>&lt; 10</td>" in page and "<td>7</td>" not in page  # 7 people suppressed, k = 10
    assert page.count('<tr class="refused">') == 2 and "REFUSED (min_count)" in page
    assert "Protection width: 3" in page and "not recorded" in page
    assert page.count('src="data:image/png;base64,') == 1 and "http" not in page.replace("http://www.w3.org", "")


def test_an_attack_verdict_is_shown_with_the_tables_it_audited() -> None:
    """`report --attack FILE`: the table's LP audit as `attack --verdict FILE` wrote it (counts
    only); a verdict about other tables leaves it 'not recorded'."""
    def page(*attacks: dict[str, object]) -> str:
        return report.render({"relation": "trail", "releases": RELEASES, "tables": [GRID], "decisions": []},
                             attacks=attacks)

    verdict = {"command": "attack", "reports": ["t", "u"], "protection": 3.0, "audited_at": "2026-01-03 09:00:00 UTC",
               "verdict": "FAIL", "found": 2, "exact": 1}
    shown = page(verdict)
    assert "LP audit (attack): FAIL, 2 hidden cell(s) can be worked out (1 exactly) or narrowed below 3 (audited " \
        "<time>2026-01-03 09:00:00 UTC</time>, with t, u)." in shown and "not recorded" not in shown
    assert "not recorded" in page(dict(verdict, reports=["u"]))
    assert "OK, no hidden cell can be worked out (audited" in page(dict(verdict, verdict="OK", found=0, exact=0))
