"""A release kind is an interface (ADR 6): the k_anonymous materialization finds a kind's
descriptor (_release_kind__<name>) and its gate checks (_gate_check__<name>) by name, so a fifth
kind is one new folder of kanon's macros and no edit to the core.

The test installs a copy of kanon's package with one folder added, `macros/fifth/`: a descriptor,
a release macro handing a long form of people per band, a check and a warning of its own. No
file of the copy's `macros/core/` or `macros/materializations/` is edited, nor kanon_tools.report.
The descriptor declares a fact of its own, `bands_floor_seen` (the fewest people of a published
band), which reaches the gate under its own name, is read by its check and its warning, is
recorded on the trail (`kind_facts`), and is shown in the section of the reviewers' report its
descriptor describes as data. A host project releases with it through the same gate as the
three kinds: published and recorded as kind 'fifth', refused by its own check (the previous
release kept), refused when its long form states a fact its descriptor did not declare, and
listed among the known kinds when a model names one that does not exist, whose refusal the
report shows in its generic section. DuckDB only: looking a macro up by name is the same on
every warehouse."""

from __future__ import annotations

import json
import re
import shutil
from typing import Any

import pytest
from support import ROOT
from support.commands import kanon_tools_cli
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

DESCRIPTOR = """{% macro _release_kind__fifth() %}
  {{ return({'called': 'kanon.release_fifth', 'long_form': true, 'facts': ['cells_passed', 'bands_floor_seen'],
      'count': true, 'budget': false, 'rate_of': 'cells', 'order_by': none,
      'checks': ['input_empty', 'min_count', 'fifth_floor'], 'warnings': ['fifth_thin'],
      'report': {'heading': 'Band releases', 'facts': [['bands_floor_seen', 'fewest people in a published band']]}}) }}
{% endmacro %}
"""
# people per band, the bands of at least k published; facts: cells_passed (declared), its own
# bands_floor_seen (declared), and with var fifth_undeclared people_in, which it does not declare
RELEASE = """{% macro release_fifth(relation, k) %}
  {%- if not execute -%}{{ return(kanon._release_at_parse_time('fifth')) }}{%- endif -%}
  {%- set nulls = 'null as band, null as people,' -%}
  {%- set published = '_k_bands where people >= ' ~ k -%}
  {%- set policy = {'fingerprint': 'fifth', 'plan': tojson({'kind': 'fifth', 'dimensions': []})} -%}
  {%- set long_form -%}
with _k_bands as (
  select band, count(distinct person) as people from {{ relation }} group by band
)
select band, people,
  {{ kanon._long_form_row('release', {'decision': "'PASS'", 'ladder_step': '0', 'people': 'people',
      'labels': kanon._json_object([('band', 'band', true)]), 'levels': "'{}'"}) }}
from _k_bands where people >= {{ k }}
union all
{{ kanon._long_form_fact(nulls, 'cells_passed', 'count(*)', source=published) }}
union all
{{ kanon._long_form_fact(nulls, 'bands_floor_seen', 'min(people)', "'people'", source=published) }}
union all
{{ kanon._long_form_fact(nulls, 'input_rows', '(select count(*) from ' ~ relation ~ ')') }}
{%- if var('fifth_undeclared', false) %}
union all
{{ kanon._long_form_fact(nulls, 'people_in', '0') }}
{%- endif %}
union all
{{ kanon._long_form_closing_facts(nulls, 'person', policy) }}
  {%- endset -%}
  {{ kanon._long_form_published(long_form, ['band', 'people']) }}
{% endmacro %}
"""
# its own check and its own warning, each reading its own fact by name
CHECK = """{% macro _gate_check__fifth_floor(gate) %}
  {%- set seen = gate.facts.bands_floor_seen -%}
  {{ return(("a published band has only " ~ seen.value ~ " " ~ seen.text ~ ", fewer than var fifth_floor")
      if seen.value < var('fifth_floor', 0) else '') }}
{% endmacro %}
"""
WARNING = """{% macro _gate_warning__fifth_thin(gate) %}
  {{ return(("a band is published with " ~ gate.facts.bands_floor_seen.value ~ " people, within 2 of k=" ~ gate.k
      ~ ": thin bands") if gate.facts.bands_floor_seen.value < gate.k + 2 else '') }}
{% endmacro %}
"""
EVENTS = "person,band\n" + "".join(f"p{i},{band}\n" for i, band in enumerate("AAABBBC"))


@pytest.fixture(scope="module")
def fifth(tmp_path_factory: pytest.TempPathFactory, make_warehouse: Any) -> tuple[DbtProject, Warehouse]:
    root = tmp_path_factory.mktemp("fifth_kind")
    package = root / "kanon"  # kanon's package as it ships (python_helpers/setup.py), plus one folder
    package.mkdir()
    shutil.copy(ROOT / "dbt_project.yml", package / "dbt_project.yml")
    shutil.copytree(ROOT / "macros", package / "macros")
    shutil.copytree(ROOT / "models" / "audit", package / "models" / "audit")
    kind = package / "macros" / "fifth"
    kind.mkdir()
    for name, text in {"_release_kind__fifth.sql": DESCRIPTOR, "release_fifth.sql": RELEASE,
                       "_gate_check__fifth_floor.sql": CHECK, "_gate_warning__fifth_thin.sql": WARNING}.items():
        (kind / name).write_text(text)
    host = root / "host"
    for folder in ("models", "seeds"):
        (host / folder).mkdir(parents=True)
    (host / "dbt_project.yml").write_text("name: host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n")
    (host / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (host / "seeds" / "host_events.csv").write_text(EVENTS)
    (host / "models" / "fifth_mart.sql").write_text(
        "{{ config(materialized='k_anonymous', k=2) }}\n{{ kanon.release_fifth(ref('host_events'), 2) }}\n")
    (host / "models" / "sixth_mart.sql").write_text(
        "{{ config(materialized='k_anonymous', k=2, kanon_release_kind='sixth') }}\nselect 'A' as band, 3 as people\n")
    project = DbtProject(host, make_warehouse("duckdb", "kinds"))
    project.run("deps")
    project.run("seed")
    return project, project.warehouse


def _trail(wh: Warehouse, columns: str = "release_kind, status, failed_check, rows_released") -> list[tuple[Any, ...]]:
    return wh.query(f"select {columns} from {wh.schema}_kanon_audit.kanon_audit_releases where report = 'fifth_mart'"
                    " order by released_at")


def test_a_fifth_kind_in_its_own_folder_releases_through_the_gate(fifth: tuple[DbtProject, Warehouse]) -> None:
    project, wh = fifth
    released = project.run("run", "--select", "fifth_mart")
    assert sorted(wh.query(f"select band, people from {wh.schema}.fifth_mart")) == [("A", 3), ("B", 3)]
    assert _trail(wh)[-1] == ("fifth", "RELEASED", None, 2)
    # its own fact, under its own name, in its own warning's words and on the trail
    assert "fifth_mart: a band is published with 3 people, within 2 of k=2: thin bands" in released.output
    assert json.loads(_trail(wh, "kind_facts")[-1][0]) == {"bands_floor_seen": {"text": "people", "value": 3}}

    # its own check, found by name, reads its own fact and refuses: the previous release stays,
    # the refusal is recorded
    refused = project.run("run", "--select", "fifth_mart", "--vars", "{fifth_floor: 4}", expect_ok=False)
    assert "(check fifth_floor): a published band has only 3 people, fewer than var fifth_floor" in refused.output
    assert sorted(wh.query(f"select band, people from {wh.schema}.fifth_mart")) == [("A", 3), ("B", 3)]
    assert _trail(wh)[-1] == ("fifth", "REFUSED", "fifth_floor", None)


def test_a_fact_the_kind_did_not_declare_is_refused_when_the_model_compiles(
    fifth: tuple[DbtProject, Warehouse],
) -> None:
    project, wh = fifth
    before = _trail(wh)
    result = project.run("run", "--select", "fifth_mart", "--vars", "{fifth_undeclared: true}", expect_ok=False)
    assert "no long-form fact 'people_in' declared by release kind 'fifth'" in result.output
    assert [row[1] for row in _trail(wh)[len(before):]] == ["REFUSED"]  # recorded before its gate (on-run-end)


def test_an_unknown_kind_lists_every_kind_kanon_has(fifth: tuple[DbtProject, Warehouse]) -> None:
    project, _ = fifth
    result = project.run("run", "--select", "sixth_mart", expect_ok=False)
    known = "counts, fifth, hand_written, records, table"
    assert f"unknown release kind 'sixth' in config kanon_release_kind (known: {known})" in result.output


def test_the_report_shows_the_fifth_kind_in_its_own_section_and_an_unknown_kind_in_the_generic_one(
    fifth: tuple[DbtProject, Warehouse], tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """The fifth kind's section, as its descriptor describes it (heading, its fact under its
    label), with no edit to kanon_tools.report; a kind kanon does not define (sixth_mart's, on the
    trail from its refusal) gets the generic section, not nothing."""
    project, wh = fifth
    project.run("run", "--select", "fifth_mart")
    project.run("run", "--select", "sixth_mart", expect_ok=False)
    out = tmp_path_factory.mktemp("fifth_report") / "report.html"
    done = kanon_tools_cli(["report", "--project-dir", str(project.project_dir), "-o", str(out)], wh.env(),
                           project.project_dir)
    assert done.returncode == 0, done.stdout + done.stderr
    page = out.read_text(encoding="utf-8")
    sections = dict(re.findall(r"<h2>([^<]*)</h2>(.*?)(?=<h2>|</body>)", page, re.S))
    assert list(sections) == ["Overview", "Band releases", "Releases of kind sixth"]
    band = sections["Band releases"]
    assert "<h3>fifth_mart (fifth)</h3>" in band and "<th>fewest people in a published band</th>" in band
    assert re.search(r"RELEASED</td>(?:<td>[^<]*</td>){4}<td>3 \(people\)</td></tr>", band), band
    sixth = sections["Releases of kind sixth"]
    assert "<h3>sixth_mart (sixth)</h3>" in sixth and "kanon here defines no release kind &#x27;sixth&#x27;" in sixth
    assert "REFUSED (compile)" in sixth
