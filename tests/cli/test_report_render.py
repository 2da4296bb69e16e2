"""kanon_tools.report's page from what kanon.cli_report emits, without a warehouse: a hidden cell
shows its mark whatever count reaches it, a suppressed total below k is `< k`, a refusal is one
highlighted row with its check, and the page links nothing outside itself."""

from __future__ import annotations

import json
import re

from kanon_tools import report, report_plots

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
    # over time; the count release's first look; the table's picture and its sizes
    assert page.count('src="data:image/png;base64,') == 4 and "http" not in page.replace("http://www.w3.org", "")


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


def test_releases_are_numbered_with_whole_numbers_and_one_release_is_not_plotted_over_time() -> None:
    """The over-time plot's x axis is the release's number in the period (the overview's `#`),
    whole numbers from 1, half a step from each edge; one release per model draws no such plot
    (a lone dot over -0.045 to 0.045 said nothing) and the page says why."""
    figure = report_plots.over_time(RELEASES)
    rate_axis, rows_axis = figure.axes
    for axis in (rate_axis, rows_axis):
        assert axis.get_xlim() == (0.5, 3.5)
        assert [tick.get_text() for tick in axis.get_xticklabels()] == ["1", "2", "3"]
        assert axis.get_ylim()[0] == 0
    report_plots.pyplot().close(figure)
    page = report.render({"relation": "trail", "releases": RELEASES, "tables": [GRID], "decisions": []})
    assert re.findall(r"<tr(?: class=\"refused\")?><td>(\d+)</td><td class=\"name\"><time", page) == ["1", "2", "3"]
    single = [RELEASES[0], RELEASES[2]]  # one release of each of two models
    assert report_plots.over_time(single) is None
    page = report.render({"relation": "trail", "releases": single, "tables": [GRID], "decisions": []})
    assert "nothing to follow over time yet" in page and "by release number" not in page


SIZES = {"report_unique_id": "model.p.m", "invocation_id": "i1", "source": "trail", "measure": "people per row",
         "k": 10, "top": 30, "sizes": [[4, 987], [10, 3], [11, 1], [30, 2]]}  # 4 < k: as no macro sends it


def test_one_count_release_shows_people_by_decision_and_rows_at_each_size() -> None:
    """What a reviewer looks at first: people published by decision and suppressed (a total below
    k as `< k`, drawn as no bar), and how many rows sit at k, k+1, ... (k + 20 and more together);
    a size below k is neither drawn nor printed, whatever reaches the page."""
    bins = report_plots.size_bins(SIZES)
    assert bins[:3] == [("10", 3), ("11", 1), ("12", 0)] and bins[-1] == ("≥ 30", 2) and len(bins) == 21
    decisions = [{"invocation_id": "i1", "report_unique_id": "model.p.m", "decision": d, "ladder_step": s,
                  "groups": g, "people": p}
                 for d, s, g, p in (("PASS", 0, 4, 120), ("GENERALIZE", 1, 2, 35), ("GENERALIZE", 2, 1, 11),
                                    ("SUPPRESS", 2, 1, None))]
    page = report.render({"relation": "trail", "releases": RELEASES[:1], "tables": [], "decisions": decisions,
                          "sizes": [SIZES]})
    look = re.search(r'<figure class="first-look">(.*?)</figure>', page, re.S)
    assert look, "no first look at the count release"
    cells = re.findall(r"<td(?: class=\"name\")?>([^<]*)</td>", look.group(1))
    assert cells[:6] == ["PASS: published", "120", "GENERALIZE: published", "46", "SUPPRESS: suppressed", "&lt; 10"]
    assert re.findall(r"<th>([^<]*)</th>", look.group(1))[2:] == ["people per row", "10", "11", "≥ 30"]
    assert cells[6:] == ["rows", "3", "1", "2"] and "987" not in page
    figure = report_plots.first_look([("PASS", 120, "b", "120"), ("SUPPRESS", None, "g", "< 10")], "people",
                                     SIZES, report.SIZE_LABELS["counts"])
    left, right = figure.axes
    assert [bar.get_width() for bar in left.patches] == [120, 0]
    assert " < 10" in [text.get_text() for text in left.texts]
    assert [bar.get_height() for bar in right.patches] == [n for _, n in bins]
    report_plots.pyplot().close(figure)


def test_a_table_is_pictured_with_its_primary_and_secondary_cells_marked() -> None:
    """The grid as a picture: P and S on the hidden cells, a published cell's count, never a count
    beside a hidden status; a third dimension goes to the rows."""
    figure = report_plots.grid_picture(GRID)
    texts = sorted(text.get_text() for text in figure.axes[0].texts)
    assert texts == ["120", "P", "S"]
    report_plots.pyplot().close(figure)
    cube = {"dimensions": ["day", "age", "action"], "cells": [
        [[["Mon", 0], ["young", 0], ["Views", 0]], 50, "published"],
        [[["Mon", 0], ["old", 0], ["Views", 0]], 4321, "primary"],
        [[["Mon", 0], ["young", 0], ["Total", 1]], 60, "published"]]}
    figure = report_plots.grid_picture(cube)
    axis = figure.axes[0]
    assert [t.get_text() for t in axis.get_yticklabels()] == ["Mon / old", "Mon / young"]
    assert [t.get_text() for t in axis.get_xticklabels()] == ["Views", "Total"]
    assert sorted(text.get_text() for text in axis.texts) == ["50", "60", "P", "·"]
    report_plots.pyplot().close(figure)
    page = report.render({"relation": "trail", "releases": RELEASES, "tables": [GRID], "decisions": []})
    picture = re.search(r'<figure class="grid-picture">(.*?)</figure>', page, re.S)
    assert picture and re.findall(r"<td>(\d+)</td>", picture.group(1)) == ["1", "1", "1"]


def test_a_noisy_count_release_shows_its_noise_and_an_exact_one_does_not() -> None:
    """The mode, the ptable's hash, the key's variable, the standard deviation and the
    perturbation's distribution, drawn and printed; none of it for an exact release."""
    noise = {"mode": "cell_key", "ptable": "5e1f" * 8, "imax": 9, "key_env": "KANON_NOISE_KEY", "variance": 2.25,
             "distribution": [[-2, 0.125], [-1, 0.25], [0, 0.25], [1, 0.25], [2, 0.125]]}
    plan = {"dimensions": [{"name": "age", "depth": 2}], "ladder": [[0]], "noise": noise}
    noisy = [dict(RELEASES[0], release_plan=json.dumps(plan))]
    page = report.render({"relation": "trail", "releases": noisy, "tables": [], "decisions": [], "sizes": []})
    for text in ("cell_key", "5e1f" * 8, "KANON_NOISE_KEY", "<td>1.50</td>", "the Cell Key Method is not"):
        assert text in page, text
    figure = re.search(r'<figure class="noise">(.*?)</figure>', page, re.S)
    assert figure and "data:image/png;base64," in figure.group(1)
    assert re.findall(r"<td>([0-9.]+)</td>", figure.group(1)) == ["0.1250", "0.2500", "0.2500", "0.2500", "0.1250"]
    exact = report.render({"relation": "trail", "releases": RELEASES[:1], "tables": [], "decisions": [], "sizes": []})
    assert 'class="noise"' not in exact and "Noise after k" not in exact


def test_a_dp_release_shows_what_it_spent_and_what_is_left() -> None:
    """The mechanism, the spend, the budget and what remains, the standard deviation and the
    noise's distribution: what a reviewer of a differentially private release wants to see."""
    noise = {"mode": "dp", "mechanism": "laplace", "max_cells_per_person": 2, "scale": 4.0, "variance": 31.5,
             "key_env": "KANON_NOISE_KEY", "spent": {"source": "circulation", "epsilon": 0.5, "delta": 2e-10},
             "budget": {"epsilon": 2.0, "delta": 1e-6}, "remaining": {"epsilon": 1.25, "delta": 9e-7},
             "distribution": [[-1, 0.2], [0, 0.24], [1, 0.2]]}
    plan = {"dimensions": [{"name": "age", "depth": 2}], "ladder": [[1]], "noise": noise}
    page = report.render({"relation": "trail", "releases": [dict(RELEASES[0], release_plan=json.dumps(plan))],
                          "tables": [], "decisions": [], "sizes": []})
    for text in ("dp (differential privacy)", "laplace", "circulation", "<td>0.5</td>", "<td>1.25</td>",
                 "<td>5.61</td>", "epsilon left", "ledger"):
        assert text in page, text
    assert "the Cell Key Method is not" not in page
    figure = re.search(r'<figure class="noise">(.*?)</figure>', page, re.S)
    assert figure and re.findall(r"<td>([0-9.]+)</td>", figure.group(1)) == ["0.2000", "0.2400", "0.2000"]


def test_a_kind_without_a_section_of_its_own_gets_the_generic_one() -> None:
    """A kind kanon_tools builds no section for is never left out: with what its descriptor says
    (cli_report's `kinds`) it gets its heading and the facts it names, shown as stated; a kind
    kanon does not define (no descriptor) gets a generic heading, a note, and every fact the trail
    recorded, a number below k as `< k` (nothing vouched that it is no count of people)."""
    def release(report: str, kind: str | None, facts: dict[str, object], **more: object) -> dict[str, object]:
        return {"report": report, "report_unique_id": f"model.p.{report}", "invocation_id": report,
                "released_at": "2026-01-03 10:00:00", "status": "RELEASED", "release_kind": kind, "k": 5,
                "rows_released": 8, "people_suppressed": 3, "suppression_rate": "0.1",
                "kind_facts": json.dumps(facts), **more}

    releases = [release("bands", "fifth", {"bands_floor_seen": {"value": 3, "text": "people"}, "other": {"value": 1}}),
                release("odd", "sixth", {"thin_seen": {"value": 2, "text": None},
                                         "label": {"value": None, "text": "x"}}),
                release("old", None, {}, status="REFUSED", failed_check="compile"),
                release("mine", "hand_written", {})]
    kinds = {"fifth": {"called": "kanon.release_fifth", "heading": "Band releases",
                       "facts": [["bands_floor_seen", "fewest people in a band"]]},
             "sixth": None, "hand_written": {"called": "the model's own SQL", "heading": "Hand-written releases"}}
    page = report.render({"relation": "trail", "releases": [*RELEASES, *releases], "kinds": kinds,
                          "tables": [GRID], "decisions": []})
    headings = re.findall(r"<h2>([^<]*)</h2>", page)
    assert headings == ["Overview", "Count releases", "Tables with totals", "Band releases", "Hand-written releases",
                        "Releases of kind sixth", "Releases of an unrecorded kind"]
    sections = dict(re.findall(r"<h2>([^<]*)</h2>(.*?)(?=<h2>|</body>)", page, re.S))
    band = sections["Band releases"]
    assert "<th>fewest people in a band</th>" in band and "<td>3 (people)</td>" in band and "other" not in band
    assert "<td>&lt; 5</td>" in band and "defines no release kind" not in band  # people suppressed 3 < k
    odd = sections["Releases of kind sixth"]
    assert "kanon here defines no release kind &#x27;sixth&#x27;" in odd
    assert re.findall(r"<th>([^<]*)</th>", odd)[-2:] == ["label", "thin_seen"]
    assert "<td>x</td><td>&lt; 5</td></tr>" in odd and "<td>2</td>" not in odd
    assert "REFUSED (compile)" in sections["Releases of an unrecorded kind"]
    assert "<h3>mine (hand_written)</h3>" in sections["Hand-written releases"]
