"""`python -m kanon_tools report`: one self-contained HTML page for reviewers, read from the audit
trail through dbt (kanon.cli_report), and seen as a person sees it, in headless Chromium.

Fixture: a throwaway host project under tmp_path on DuckDB, with one release of each kind: a
count release (host_counts, k=40: two groups left thin after the ladder and suppressed, of 37 and
19 people), a record release (host_people_extract, k=5) and a table with totals (host_table, k=40:
two primary cells, of 33 and 28 people, and the secondaries release_table chooses), then a second
run of host_counts with a suppression budget it breaks (REFUSED, suppression_budget).

The privacy test collects every count the trail and the fixture's data hide (the people of every
SUPPRESS group on the trail, the finest cells behind them, and the true count of every cell the
table hides, from the seed) and asserts that none of them is a number token of the page's visible
text, timestamps aside (a <time> element: the warehouse's clock, whose digits are not counts), and
that the grid's hidden cells show their mark and nothing else. The fixture's hidden counts are two-
digit numbers unlike any count the page publishes, which the test checks first, so a hit is a leak.
Every plot's numbers are printed beside it (kanon_tools.report), so the scan covers the plots too;
the cell sizes kanon.cli_report counts are checked against the marts and the trail, and a trail and
marts tampered to hold cells below k show none of them.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from kanon_tools import report
from kanon_tools.dbt_runner import swapped_environment
from support import IN_CI, ROOT
from support.commands import kanon_tools_cli
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

# host_counts: branch x age_band (a hierarchy: band -> 13-24 / 25-64 / 65+ -> *), k=40
COUNTS = {("North", "25-44"): 60, ("North", "45-64"): 45, ("North", "13-17"): 20, ("North", "18-24"): 23,
          ("South", "25-44"): 50, ("South", "13-17"): 11, ("South", "65+"): 26,
          ("East", "25-44"): 55, ("East", "45-64"): 19}
# what the ladder leaves thin at the root, per branch, and the finest cells behind it
SUPPRESSED_FINEST = (11, 26, 19)
HIERARCHY = ("level_0,level_1,level_2\n13-17,13-24,*\n18-24,13-24,*\n25-44,25-64,*\n45-64,25-64,*\n"
             "65+,65+,*\n")
# host_table: day x action, k=40; Mon Saves and Tue Follows are below k
TABLE = {("Mon", "Views"): 120, ("Mon", "Saves"): 33, ("Mon", "Follows"): 77,
         ("Tue", "Views"): 95, ("Tue", "Saves"): 64, ("Tue", "Follows"): 28,
         ("Wed", "Views"): 88, ("Wed", "Saves"): 71, ("Wed", "Follows"): 90}

COUNTS_MODEL = """{{ config(materialized='k_anonymous', k=40, max_suppression=var('host_budget', none)) }}
{{ kanon.release_counts(relation=ref('host_events'), privacy_unit='person', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('host_hierarchy_age')}) }}
"""
RECORDS_MODEL = """{{ config(materialized='k_anonymous', k=5, max_suppression=0.2) }}
{{ kanon.release_records(ref('host_people'), columns={
    'person': 'drop',
    'age': {'role': 'quasi_identifier', 'bins': [[20, 30, 40, 50, 60, 70, 80, 90, 100], [20, 60, 100]]},
    'sex': 'quasi_identifier',
    'diagnosis': 'keep'}) }}
"""
TABLE_MODEL = """{{ config(materialized='k_anonymous', k=40) }}
{{ kanon.release_table(ref('host_activity'), privacy_unit='user_id', row_dimension='day', column_dimension='action') }}
"""
SEEDS = """seeds:
  host:
    host_events:
      +column_types: {person: varchar(20), branch: varchar(20), age_band: varchar(20)}
    host_hierarchy_age:
      +column_types: {level_0: varchar(20), level_1: varchar(20), level_2: varchar(20)}
    host_people:
      +column_types: {person: varchar(20), age: integer, sex: varchar(1), diagnosis: varchar(20)}
    host_activity:
      +column_types: {user_id: varchar(20), day: varchar(3), action: varchar(10)}
"""


def _people() -> str:
    """60 records: ages spread over every decade from 20 to 79, both sexes; four people over 90."""
    rows = [f"r{i},{20 + (i * 7) % 60},{'FM'[i % 2]},{('flu', 'asthma', 'none')[i % 3]}" for i in range(60)]
    rows += [f"r{60 + i},{91 + i},F,flu" for i in range(4)]
    return "person,age,sex,diagnosis\n" + "\n".join(rows) + "\n"


def write_host(path: Path) -> None:
    for folder in ("models", "seeds"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "dbt_project.yml").write_text("name: host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n" + SEEDS)
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    events = [f"{branch[0]}{band}-{i},{branch},{band}" for (branch, band), n in COUNTS.items() for i in range(n)]
    (path / "seeds" / "host_events.csv").write_text("person,branch,age_band\n" + "\n".join(events) + "\n")
    (path / "seeds" / "host_hierarchy_age.csv").write_text(HIERARCHY)
    (path / "seeds" / "host_people.csv").write_text(_people())
    activity = [f"{day}{action}{i},{day},{action}" for (day, action), n in TABLE.items() for i in range(n)]
    (path / "seeds" / "host_activity.csv").write_text("user_id,day,action\n" + "\n".join(activity) + "\n")
    (path / "models" / "host_counts.sql").write_text(COUNTS_MODEL)
    (path / "models" / "host_people_extract.sql").write_text(RECORDS_MODEL)
    (path / "models" / "host_table.sql").write_text(TABLE_MODEL)


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory, make_warehouse: Any) -> tuple[Path, Warehouse]:
    path = tmp_path_factory.mktemp("report_host")
    write_host(path)
    wh = make_warehouse("duckdb", "report")
    project = DbtProject(path, wh)
    project.run("deps")
    project.run("build")
    # the budget breaks: 56 of 309 people suppressed > 5%
    project.run("run", "--select", "host_counts", "--vars", "{host_budget: 0.05}", expect_ok=False)
    return path, wh


@pytest.fixture(scope="module")
def page(host: tuple[Path, Warehouse], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path, wh = host
    out = tmp_path_factory.mktemp("report_page") / "report.html"
    # the LP audit of the table, its verdict kept for the page (attack prints it and stores nothing)
    verdict = out.with_name("attack.json")
    attacked = kanon_tools_cli(["attack", "--report", "host_table", "--verdict", str(verdict),
                                "--project-dir", str(path)], wh.env(), path)
    assert attacked.returncode == 0 and json.loads(verdict.read_text())["verdict"] == "OK", attacked.stderr
    done = kanon_tools_cli(["report", "--project-dir", str(path), "--attack", str(verdict), "-o", str(out)], wh.env(),
                           path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"written to {out}" in done.stdout
    return out


class _Visible(HTMLParser):
    """The page's visible text (no script, style or <time>; an <img>'s data is an attribute, not
    text), and the text of every grid cell marked hidden (class `hidden`)."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.hidden_cells: list[str] = []
        self._skip = 0
        self._hidden: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style", "time"):
            self._skip += 1
        if tag == "td" and "hidden" in (dict(attrs).get("class") or "").split():
            self._hidden = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style", "time"):
            self._skip -= 1
        if tag == "td" and self._hidden is not None:
            self.hidden_cells.append("".join(self._hidden).strip())
            self._hidden = None

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)
            if self._hidden is not None:
                self._hidden.append(data)


def _visible(html: str) -> _Visible:
    parser = _Visible()
    parser.feed(html)
    return parser


def _numbers(text: str) -> Counter[str]:
    """The number tokens of a text: whole numbers and decimals, each standing alone (a digit run
    inside a word, such as an invocation id's, is not one)."""
    return Counter(re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]*\w)", text))


def _hidden_counts(wh: Warehouse) -> set[int]:
    groups = wh.relation("kanon_audit_groups", "kanon_audit")
    suppressed = {int(people) for (people,) in wh.query(
        f"select people from {groups} where decision = 'SUPPRESS'") if people is not None}
    assert suppressed == {37, 19}  # South and East at the root
    table_hidden = {TABLE[(json.loads(labels)["day"], json.loads(labels)["action"])] for (labels,) in wh.query(
        f"select labels from {groups} where decision in ('PRIMARY', 'SECONDARY')")}
    assert {33, 28} <= table_hidden
    return suppressed | set(SUPPRESSED_FINEST) | table_hidden


def test_the_page_shows_every_release_and_hides_every_hidden_count(page: Path, host: tuple[Path, Warehouse]) -> None:
    _, wh = host
    html = page.read_text(encoding="utf-8")
    assert "http://" not in html.replace("http://www.w3.org", "") and "https://" not in html  # self-contained
    seen = _visible(html)
    text = " ".join(seen.text)
    for name in ("host_counts", "host_people_extract", "host_table", "RELEASED", "REFUSED", "suppression_budget",
                 "PASS", "GENERALIZE", "SUPPRESS", "PRIMARY", "SECONDARY",
                 "LP audit (attack): OK, no hidden cell can be worked out", "with host_table"):
        assert name in text, name
    hidden = _hidden_counts(wh)
    numbers = _numbers(text)
    leaks = {n: numbers[str(n)] for n in hidden if str(n) in numbers}
    assert leaks == {}, f"hidden counts on the page: {leaks}"
    # the fixture's hidden counts are unlike every count the page publishes, so a hit is a leak
    published = {210, 43, 56, 120, 95, 90, 71, 88, 230, 187, 249, 195, 168, 303, 666}
    assert not hidden & published and {str(n) for n in published} <= set(numbers)
    # the record release suppressed one class of 4 (< k = 5): its count is shown as "< 5"
    records = re.search(r"host_people_extract</td>.*?</tr>", html, re.S)
    assert records and "<td>&lt; 5</td>" in records.group(0)
    assert sorted(seen.hidden_cells) and set(seen.hidden_cells) <= {"PRIMARY", "SECONDARY"}
    assert Counter(seen.hidden_cells)["PRIMARY"] == 2
    # what a reviewer looks at first, each release's plots with their numbers: the scan read them
    assert html.count('<figure class="first-look">') == 3 and html.count('<figure class="grid-picture">') == 1
    for label in ("PASS: published", "SUPPRESS: suppressed", "people per row", "records per class",
                  "people per cell or total", "suppressed: too_small"):
        assert label in text, label


def test_the_macro_never_returns_a_hidden_count(page: Path, host: tuple[Path, Warehouse]) -> None:
    """What kanon.cli_report hands the tool: no people for a suppressed group, no count for a hidden cell."""
    path, wh = host
    with swapped_environment(wh.env()):
        data = report.load(argparse.Namespace(project_dir=str(path), profiles_dir=None, target=None, reports=None,
                                              since=None))
    with_people = [d for d in data["decisions"] if d["decision"] in ("SUPPRESS", "PRIMARY", "SECONDARY")]
    assert with_people and all(d["people"] is None for d in with_people)
    [grid] = data["tables"]
    hidden = [cell for cell in grid["cells"] if cell[2] != "published"]
    assert len(hidden) >= 4 and all(cell[1] is None for cell in hidden)
    refused = [r for r in data["releases"] if r["status"] == "REFUSED"]
    assert [(r["report"], r["failed_check"]) for r in refused] == [("host_counts", "suppression_budget")]
    # the released cells' sizes, counted in the warehouse: as the marts publish them, none below k
    sizes = {s["report_unique_id"].split(".")[-1]: s for s in data["sizes"]}
    assert {name: (s["k"], s["sizes"]) for name, s in sizes.items()} == {
        "host_counts": (40, bins(wh.query(f"select people from {wh.relation('host_counts')}"), 40)),
        "host_table": (40, bins(wh.query(f"select people from {wh.relation('host_table')} where status = 'published'"),
                                40)),
        "host_people_extract": (5, bins(wh.query(
            f"select count(*) from {wh.relation('host_people_extract')} group by age, sex"), 5))}
    assert sizes["host_counts"]["sizes"] == [[43, 1], [45, 1], [50, 1], [55, 1], [60, 1]]  # 60 is "60 and more"


def bins(sizes: Iterable[tuple[Any, ...]], k: int) -> list[list[int]]:
    """How many cells have each size, sizes from k + 20 on counted as k + 20: what cli_report counts."""
    counted = Counter(min(int(size), k + 20) for (size,) in sizes)
    assert min(counted) >= k
    return sorted([size, n] for size, n in counted.items())


def test_cells_below_k_on_a_tampered_trail_and_marts_never_reach_the_page(
        host: tuple[Path, Warehouse], tmp_path: Path) -> None:
    """Were a published group on the trail, a table's published cell or an extract's class below k
    (a tampered copy of the warehouse: no release makes one), cli_report counts no size below k,
    and the page's sizes tables hold none."""
    path, wh = host
    copy = Warehouse(kind=wh.kind, schema=wh.schema, workdir=tmp_path)  # same catalog and schemas, another file
    shutil.copy(wh.duckdb_path, copy.duckdb_path)
    groups, releases = copy.relation("kanon_audit_groups", "kanon_audit"), copy.relation("kanon_audit_releases",
                                                                                          "kanon_audit")
    copy.execute(f"insert into {groups} (invocation_id, report_unique_id, decision, ladder_step, labels, levels, "
                 f"people, people_shown) select invocation_id, report_unique_id, 'PASS', 0, '{{}}', '{{}}', 23, 23 "
                 f"from {releases} where report = 'host_counts' and status = 'RELEASED'")
    copy.execute(f"update {copy.relation('host_table')} set people = 21 where day = 'Wed' and action = 'Saves'")
    copy.execute(f"insert into {copy.relation('host_people_extract')} values ('10-19', 'M', 'flu'), "
                 "('10-19', 'M', 'flu'), ('10-19', 'M', 'flu')")
    with swapped_environment(copy.env()):
        data = report.load(argparse.Namespace(project_dir=str(path), profiles_dir=None, target=None, reports=None,
                                              since=None))
    assert len(data["sizes"]) == 3
    assert all(size == 0 or size >= entry["k"] for entry in data["sizes"] for size, _ in entry["sizes"])
    out = tmp_path / "page.html"
    done = kanon_tools_cli(["report", "--project-dir", str(path), "-o", str(out)], copy.env(), path)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = [int(n) for table in re.findall(r'<table class="sizes">(.*?)</table>', out.read_text(), re.S)
             for n in re.findall(r"<th>(?:≥ )?(\d+)</th>", table)]
    assert len(shown) >= 3 and not {3, 21, 23} & set(shown)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def test_a_person_sees_the_plot_the_refusal_and_the_grid(page: Path, tmp_path: Path) -> None:
    """The page rendered by headless Chromium (Debian's package): its DOM as rendered holds the
    plots, the refusal row with its check and the grid with its marks; the screenshot is an image."""
    chromium = _chromium()
    if chromium is None:
        message = "chromium is not installed (apt-get install -y chromium): cannot render the report page"
        if IN_CI:
            pytest.fail(message + "; CI requires it", pytrace=False)
        pytest.skip(message)
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,2400"]
    env = {**os.environ, "HOME": str(tmp_path)}
    dom = subprocess.run([*flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=60,
                         env=env, check=True).stdout
    assert re.search(r'<img[^>]+class="plot"[^>]+src="data:image/png;base64,', dom)
    assert len(re.findall(r'<img[^>]+src="data:image/png;base64,', dom)) >= 2
    # each release's first look (people or records by decision, cells at each size), the table's picture
    assert dom.count('<figure class="first-look">') == 3 and dom.count('<figure class="grid-picture">') == 1
    refused = re.findall(r'<tr class="refused">(.*?)</tr>', dom, re.S)  # the overview's row, the changes' row
    assert len(refused) == 2 and all("REFUSED (suppression_budget)" in row for row in refused)
    grid = re.search(r'<table class="grid">(.*?)</table>', dom, re.S)
    assert grid and grid.group(1).count(">PRIMARY<") == 2 and ">SECONDARY<" in grid.group(1)
    shot = tmp_path / "report.png"
    subprocess.run([*flags, f"--screenshot={shot}", page.as_uri()], capture_output=True, timeout=60, env=env,
                   check=True)
    from matplotlib import image

    pixels = image.imread(str(shot))
    assert pixels.shape[:2] == (2400, 1280)
    colours = {tuple(p) for p in pixels[::8, ::8].reshape(-1, pixels.shape[2]).tolist()}
    assert len(colours) > 50  # text, tables and plots, not a blank page
    keep = os.environ.get("KANON_REPORT_SCREENSHOT")  # refreshes docs/images/report.png when set
    if keep:
        shutil.copy(shot, keep)


def test_the_period_and_the_reports_filter_what_is_read(host: tuple[Path, Warehouse], tmp_path: Path) -> None:
    path, wh = host

    def run(*args: str) -> tuple[subprocess.CompletedProcess[str], str]:
        out = tmp_path / "page.html"
        done = kanon_tools_cli(["report", "--project-dir", str(path), "-o", str(out), *args], wh.env(), path)
        return done, out.read_text(encoding="utf-8") if out.exists() else ""

    done, html = run("--report", "host_table", "--since", "2000-01-01")
    assert done.returncode == 0 and "report of 1 release(s)" in done.stdout, done.stdout + done.stderr
    assert "host_table" in html and "host_counts" not in html and 'class="grid"' in html
    (tmp_path / "page.html").unlink()
    done, html = run("--since", "2999-01-01")
    assert done.returncode == 0 and "No release in the period." in html
    assert run("--since", "yesterday")[0].returncode == 2
