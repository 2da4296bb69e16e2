"""What everyday dbt commands show of a release: no more than the mart publishes.

A host project installs kanon through packages.yml and releases the three kinds (counts with
groups left thin and suppressed, records with a privacy unit and suppressed records, a table
with totals and hidden cells). Then, as an analyst would, it runs `dbt show` (text, and JSON at
a limit above the mart's size: what editor plugins and Preview buttons run), `dbt compile`
followed by the compiled file run by hand, and reads target/ (manifest.json included) and logs/.

What the trail says is hidden must be in none of them:
- the long form's internals: no `_kanon_*` column in any preview;
- every previewed row is a row of the published mart (so nothing below k, no hidden cell's count);
- the privacy units (record releases stage each record's person for the gate's recount);
- each suppressed group's labels as the long form carries them (JSON, in `_kanon_labels`);
- what the record search learned from the data (records and classes by fate, rescue hints):
  kept off the compiled SQL and off the statements dbt logs, on the private trail only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from support import ROOT
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

MODELS = ("counts_mart", "records_mart", "table_mart")
# the learned half of a record release's plan (kanon._records_policy): keys only it writes
LEARNED_KEYS = ('"classes_suppressed"', '"records_out"', '"rescue"')

COUNTS = """{{ config(materialized='k_anonymous', k=3) }}
-- people by branch and age band (comments around the call are the user's own)
{{ kanon.release_counts(ref('preview_events'), privacy_unit='Patron Id', dimensions=['branch', 'age_band'],
    hierarchies={'age_band': ref('preview_age')}, ladder=[{'age_band': 1}]) }}
/* reviewed by the data protection officer */
"""
RECORDS = """{{ config(materialized='k_anonymous', k=3, max_suppression=0.3) }}
{{ kanon.release_records(ref('preview_people'), privacy_unit='Patron Id', suppression_unit='people', columns={
    'Patron Id': 'drop', 'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60]]}, 'branch': 'quasi_identifier',
    'diagnosis': 'sensitive'}) }}
"""
TABLE = """{{ config(materialized='k_anonymous', k=3) }}
{{ kanon.release_table(ref('preview_events'), privacy_unit='Patron Id', row_dimension='branch',
    column_dimension='age_band') }}
"""

# a release macro wrapped in the model's own SQL: the materialization would publish the long form
# and not the filter the SQL says, so it is refused
WRAPPED = """{{ config(materialized='k_anonymous', k=3, enabled=var('preview_wrapped', false)) }}
select * from ({{ kanon.release_counts(ref('preview_events'), privacy_unit='Patron Id', dimensions=['branch']) }}) as x
where branch = 'CENTRAL'
"""


def person(i: int) -> str:
    # ids found nowhere but in the seeds: a token the scan can look for
    return f"pq{i:03d}-x7"


def write_host(path: Path) -> None:
    (path / "models").mkdir(parents=True)
    (path / "seeds").mkdir()
    (path / "dbt_project.yml").write_text(
        "name: preview_host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  preview_host:\n    preview_age:\n"
        "      +column_types: {level_0: varchar, level_1: varchar, level_2: varchar}\n")
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    events = ["Patron Id,branch,age_band"]
    # CENTRAL: many people in each band; O'Hara: a few, some bands thin; Riverside: one person
    for i in range(30):
        events.append(f"{person(i)},CENTRAL,{['13-17', '18-24', '25-44', '45-64'][i % 4]}")
    for i in range(30, 38):
        events.append(f"{person(i)},O'Hara,{['13-17', '18-24', '25-44', '25-44'][i % 4]}")
    events.append(f"{person(99)},Riverside,45-64")
    (path / "seeds" / "preview_events.csv").write_text("\n".join(events) + "\n")
    (path / "seeds" / "preview_age.csv").write_text(
        "level_0,level_1,level_2\n13-17,13-24,*\n18-24,13-24,*\n25-44,25-64,*\n45-64,25-64,*\n")
    people = ["Patron Id,age,branch,diagnosis"]
    for i in range(40):
        branch, diagnosis = ["CENTRAL", "EAST"][i % 2], ["flu", "cold", "asthma"][i % 3]
        people.append(f"{person(i)},{25 + (i % 4) * 10},{branch},{diagnosis}")
    people.append(f"{person(98)},71,WEST,rare")  # alone in its class: suppressed
    (path / "seeds" / "preview_people.csv").write_text("\n".join(people) + "\n")
    for name, sql in (("counts_mart", COUNTS), ("records_mart", RECORDS), ("table_mart", TABLE), ("wrapped", WRAPPED)):
        (path / "models" / f"{name}.sql").write_text(sql)


@pytest.fixture(scope="module")
def released(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> DbtProject:
    host = tmp_path_factory.mktemp("preview") / "preview_host"
    write_host(host)
    project = DbtProject(host, make_warehouse(warehouse_kind, "preview"), artifacts=True)
    project.run("deps")
    project.run("build")
    return project


def mart_rows(wh: Warehouse, name: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    conn = wh.connect()
    try:
        cur = conn.cursor()
        cur.execute(f"select * from {wh.relation(name)}")
        return [d[0] for d in cur.description], [tuple(r) for r in cur.fetchall()]
    finally:
        conn.close()


def hidden_tokens(wh: Warehouse) -> dict[str, str]:
    """What must appear nowhere: every privacy unit, each suppressed group's labels as the long
    form writes them (and as JSON would escape them), and the learned plan's own keys."""
    tokens = {f"person {person(i)}": person(i) for i in [*range(40), 98, 99]}
    groups = wh.query(f"select labels from {wh.schema}_kanon_audit.kanon_audit_groups where decision = 'SUPPRESS'")
    assert groups, "the fixture must leave suppressed groups"
    for (labels,) in groups:
        tokens[f"suppressed group {labels}"] = labels
        tokens[f"suppressed group {labels} (escaped)"] = json.dumps(labels)[1:-1]
    for key in LEARNED_KEYS:
        tokens[f"learned plan key {key}"] = key
    return tokens


def files_under(*places: Path) -> Iterable[Path]:
    for place in places:
        yield from (p for p in place.rglob("*") if p.is_file())


def leaks(texts: dict[str, str], tokens: dict[str, str]) -> list[str]:
    return [f"{what} in {where}" for where, text in texts.items() for what, token in tokens.items() if token in text]


def normalized(row: Iterable[Any]) -> tuple[str, ...]:
    # JSON previews give numbers as numbers, the warehouse as int or Decimal: compare as text
    return tuple("" if v is None else str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in row)


@pytest.mark.parametrize("model", MODELS)
def test_dbt_show_returns_only_published_rows(released: DbtProject, model: str) -> None:
    wh = released.warehouse
    columns, rows = mart_rows(wh, model)
    published = {normalized(r) for r in rows}
    result = released.run("show", "--select", model, "--output", "json", "--limit", "1000")
    preview = json.loads(result.output[result.output.index("{"):result.output.rindex("}") + 1])["show"]
    assert "_kanon" not in result.output
    assert preview and all(list(r) == columns for r in preview), "a preview shows the published columns, in order"
    assert len(preview) == len(rows)
    assert {normalized(r.values()) for r in preview} == published
    text = released.run("show", "--select", model, "--limit", "1000")
    assert "_kanon" not in text.output and "Previewing" in text.output


def run_by_hand(wh: Warehouse, sql: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    conn = wh.connect()
    try:
        cur = conn.cursor()
        cur.execute(sql)
        return [d[0] for d in cur.description], [tuple(r) for r in cur.fetchall()]
    finally:
        conn.close()


def test_a_compiled_release_run_by_hand_returns_only_published_rows(released: DbtProject) -> None:
    wh = released.warehouse
    released.run("compile", "--select", *MODELS)
    compiled = {model: next((released.state_dir / "target" / "compiled").rglob(f"{model}.sql")).read_text()
                for model in MODELS}
    for model in ("counts_mart", "records_mart"):
        columns, rows = mart_rows(wh, model)
        got_columns, got = run_by_hand(wh, compiled[model])
        assert got_columns == columns, model
        assert sorted(map(normalized, got)) == sorted(map(normalized, rows)), model
    # a table's SQL reads its search's secondary cells from a table private to the session that
    # compiled it (dropped with it): by hand, it returns nothing at all
    with pytest.raises(Exception, match="_kanon_ts_"):
        run_by_hand(wh, compiled["table_mart"])


def test_previews_target_and_logs_hold_nothing_the_trail_hides(released: DbtProject) -> None:
    wh = released.warehouse
    tokens = hidden_tokens(wh)
    outputs = {}
    for model in MODELS:
        outputs[f"dbt show {model} (json)"] = released.run("show", "--select", model, "--output", "json",
                                                           "--limit", "1000").output
        outputs[f"dbt show {model}"] = released.run("show", "--select", model, "--limit", "1000").output
    released.run("compile", "--select", *MODELS)
    target = {str(p): p.read_text(errors="replace") for p in files_under(released.state_dir / "target")}
    logs = {str(p): p.read_text(errors="replace") for p in files_under(released.state_dir / "logs")}
    assert any(p.endswith("manifest.json") for p in target), "the scan must cover manifest.json"
    assert any(p.endswith(".sql") and "/compiled/" in p for p in target), "the scan must cover compiled SQL"
    # dbt's debug log has the text of every statement kanon runs: the trail's summary row is
    # written with its plan bound as a parameter (_audit_write_bound), so the plan is not there
    assert leaks({**outputs, **target, **logs}, tokens) == []
    # the trail has what the compiled SQL no longer carries: the search's figures, for the receipt
    (plan,) = wh.query(f"select release_plan from {wh.schema}_kanon_audit.kanon_audit_releases "
                       "where report = 'records_mart' and status = 'RELEASED'")[0]
    learned = json.loads(plan)
    assert learned["suppressed"]["too_small"]["records"] >= 1 and learned["records_in"] == 41


def test_a_release_wrapped_in_other_sql_is_refused(released: DbtProject) -> None:
    result = released.run("run", "--select", "wrapped", "--vars", "{preview_wrapped: true}", expect_ok=False)
    assert "must be that call alone" in result.output and "Nothing was published" in result.output
    wh = released.warehouse
    assert wh.query(f"select count(*) from information_schema.tables where table_name = 'wrapped' "
                    f"and table_schema = '{wh.schema}'") == [(0,)]
