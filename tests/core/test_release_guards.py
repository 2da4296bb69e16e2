"""What protects the last good release, and what a release says about itself (issue 35; issue 30,
item 7), from a host project that installs kanon through packages.yml, on both warehouses.

The host (written by this module) releases the same raw tables four ways: counts, records (with a
kept id unique on every row and a pseudonymized person), a table with totals (the README's worked
example, 223 people by day x action, k=5) and a hand-written aggregate. Its project-wide model
defaults are a view materialization and a post-hook, as real repos set. The test then plays a
sequence of nights on the raw tables:

    night 1  everything is released; the kept id is warned about and on the trail
    night 2  one new person saves on Tuesday (a hidden cell: Tue Saves goes from 3 to 4) and one
             person joins the records; the pseudonym key is changed: the table's Tuesday, Saves
             and grand totals rise by one around the hidden cell (3 small changes reported), a
             class of records grows by one, the key's fingerprint differs (warned)
    night 3  with on_small_change='refuse' one more Thursday save refuses the table, one more
             person refuses the records; a table with an impossible protection width is refused
             while compiling, and the trail says so
    night 4  the raw tables are emptied (an upstream load that failed): every kind is refused
             (input_empty) and every mart keeps night 3's rows
    night 5  a third of the rows come back: refused again (input_shrink, more than half gone)
    night 6  the same with allow_empty_input / max_input_shrink=1: released
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from kanon_tools.dbt_runner import DbtResult
from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, pseudonym_env
from support import INTEGRATION, ROOT
from support.projects import DbtProject
from support.warehouses import Warehouse

pytestmark = pytest.mark.dbt

KEY_A = "a1" * 32
KEY_B = "b2" * 32
KINDS = ("guard_counts", "guard_records", "guard_table", "guard_hand")
ACTIVITY = [line.split(",") for line in
            (INTEGRATION / "seeds" / "table" / "table_activity.csv").read_text().splitlines()[1:]]
DIAGNOSES = ("asthma", "diabetes", "flu", "migraine", "eczema")


def people(n: int, start: int = 0) -> list[tuple[str, str, int, str, str]]:
    """Records of n people: a unique id (kept), the person (pseudonymized), age, sex, diagnosis."""
    return [(f"R{i:04d}", f"person-{i}", 20 + (i * 7) % 60, "FM"[i % 2], DIAGNOSES[(i * 3) % 5])
            for i in range(start, start + n)]


PROJECT = {
    "dbt_project.yml": """name: guard_host
version: '1.0'
config-version: 2
profile: kanon
models:
  guard_host:
    +materialized: view
    +post-hook: "select 1"
""",
    "packages.yml": f"packages:\n  - local: {ROOT}\n",
    "models/sources.yml": """version: 2
sources:
  - name: raw
    schema: "{{ target.schema }}"
    tables: [{name: guard_events}, {name: guard_people}]
""",
    "models/guard_counts.sql": """{{ config(materialized='k_anonymous', k=5,
    allow_empty_input=var('allow_empty', false), max_input_shrink=var('max_input_shrink', 0.5)) }}
{{ kanon.release_counts(relation=source('raw', 'guard_events'), privacy_unit='user_id', dimensions=['day', 'action']) }}
""",
    "models/guard_records.sql": """{{ config(materialized='k_anonymous', k=3, max_suppression=0.1,
    allow_empty_input=var('allow_empty', false), max_input_shrink=var('max_input_shrink', 0.5)) }}
{{ kanon.release_records(source('raw', 'guard_people'), on_small_change=var('on_small_change', 'report'), columns={
    'id': 'keep', 'person': {'role': 'identifier', 'pseudonym': true},
    'age': {'role': 'quasi_identifier', 'bins': [[20, 40, 60]]}, 'sex': 'quasi_identifier',
    'diagnosis': 'sensitive'}) }}
""",
    "models/guard_table.sql": """{{ config(materialized='k_anonymous', k=5, allow_empty_input=var('allow_empty', false),
    max_input_shrink=var('max_input_shrink', 0.5)) }}
{{ kanon.release_table(source('raw', 'guard_events'), privacy_unit='user_id', row_dimension='day',
    column_dimension='action', on_small_change=var('on_small_change', 'report')) }}
""",
    "models/guard_hand.sql": """{{ config(materialized='k_anonymous', k=5, allow_empty_input=var('allow_empty', false),
    max_input_shrink=var('max_input_shrink', 0.5)) }}
select day, count(distinct user_id) as people from {{ source('raw', 'guard_events') }}
group by day having count(distinct user_id) >= 5
""",
    "models/guard_table_wide.sql": """{{ config(materialized='k_anonymous', k=5, enabled=var('guard_wide', false)) }}
{{ kanon.release_table(source('raw', 'guard_events'), privacy_unit='user_id', row_dimension='day',
    column_dimension='action', protection=1000) }}
""",
}


class KeyedHost(DbtProject):
    """The host project on one warehouse, its dbt run with a chosen pseudonym key."""

    key = KEY_A

    def runner(self) -> Any:
        runner = super().runner()
        env = {name: value for name, value in runner.env.items() if name not in (DEFAULT_KEY_ENV, "PGOPTIONS")}
        env[DEFAULT_KEY_ENV] = self.key
        runner.env = pseudonym_env(env, DEFAULT_KEY_ENV)
        return runner


@dataclass
class Nights:
    wh: Warehouse
    project: KeyedHost
    runs: list[DbtResult] = field(default_factory=list)
    marts: list[dict[str, int]] = field(default_factory=list)

    @property
    def events(self) -> str:
        return f'"{self.wh.schema}".guard_events'

    @property
    def people(self) -> str:
        return f'"{self.wh.schema}".guard_people'

    def insert(self, table: str, rows: list[tuple[Any, ...]]) -> None:
        if rows:
            values = ", ".join("(" + ", ".join(str(v) if isinstance(v, int) else f"'{v}'" for v in row) + ")"
                               for row in rows)
            self.wh.execute(f"insert into {table} values {values}")

    def night(self, key: str, variables: dict[str, Any] | None = None, wide: bool = False) -> DbtResult:
        self.project.key = key
        select = [*KINDS, *(["guard_table_wide"] if wide else [])]
        args = ["run", "--select", *select, "package:kanon,path:models/audit"]
        if variables or wide:
            args += ["--vars", json.dumps({**(variables or {}), **({"guard_wide": True} if wide else {})})]
        result = self.project.run(*args, expect_ok=None)
        self.runs.append(result)
        self.marts.append({name: self.wh.query(f"select count(*) from {self.wh.relation(name)}")[0][0]
                           for name in KINDS})
        return result

    def releases(self, report: str) -> list[dict[str, Any]]:
        """The report's rows of kanon_audit_releases, in the order they were written."""
        columns = ("status", "failed_check", "reason", "rows_compared", "rows_changed_small", "rows_appeared",
                   "rows_disappeared", "input_rows", "key_fingerprint", "suppression_rate", "release_plan")
        trail = self.wh.relation("kanon_audit_releases", "kanon_audit")
        rows = self.wh.query(f"select {', '.join(columns)} from {trail} where report = '{report}' order by released_at")
        return [dict(zip(columns, row, strict=True)) for row in rows]


def _warehouse_tables(nights: Nights) -> None:
    wh = nights.wh
    wh.execute(f'create schema if not exists "{wh.schema}"')
    wh.execute(f"create table {nights.events} (user_id varchar(20), day varchar(10), action varchar(10))")
    wh.execute(f"create table {nights.people} (id varchar(10), person varchar(20), age integer, sex varchar(1), "
               "diagnosis varchar(20))")


def _fill(nights: Nights, share: float = 1.0) -> None:
    events = [(u, d, a) for u, d, a in ACTIVITY if u]  # the events with a person
    nights.insert(nights.events, events[: int(len(events) * share)])
    nights.insert(nights.people, people(int(240 * share)))


@pytest.fixture(scope="module")
def nights(warehouse_kind: str, make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nights]:
    wh = make_warehouse(warehouse_kind, "guard")
    folder = tmp_path_factory.mktemp(f"guard_host_{warehouse_kind}")
    for name, text in PROJECT.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    project = KeyedHost(folder, wh)
    project.run("deps")
    n = Nights(wh, project)
    _warehouse_tables(n)
    _fill(n)
    n.night(KEY_A)                                                           # 1
    n.insert(n.events, [("u900", "Tue", "Saves")])
    n.insert(n.people, people(1, start=240))
    n.night(KEY_B)                                                           # 2
    n.insert(n.events, [("u901", "Thu", "Saves")])
    n.insert(n.people, people(1, start=241))
    n.night(KEY_B, {"on_small_change": "refuse"}, wide=True)                 # 3
    n.wh.execute(f"delete from {n.events}")
    n.wh.execute(f"delete from {n.people}")
    n.night(KEY_B)                                                           # 4
    _fill(n, share=1 / 3)
    n.night(KEY_B)                                                           # 5
    n.night(KEY_B, {"allow_empty": True, "max_input_shrink": 1})             # 6
    yield n


def test_night_1_releases_every_kind_with_its_input(nights: Nights) -> None:
    assert nights.runs[0].ok, nights.runs[0].output[-3000:]
    for report in KINDS:
        first = nights.releases(report)[0]
        assert first["status"] == "RELEASED", report
        assert first["input_rows"] > 0, report
    # the counts and the table read the events with a person; the records, every record
    events = sum(1 for u, _, _ in ACTIVITY if u)
    assert nights.releases("guard_counts")[0]["input_rows"] == events
    assert nights.releases("guard_table")[0]["input_rows"] == events
    assert nights.releases("guard_records")[0]["input_rows"] == 240
    assert nights.releases("guard_hand")[0]["input_rows"] == nights.marts[0]["guard_hand"] == 5


def test_a_kept_column_unique_per_person_is_warned_about_and_on_the_trail(nights: Nights) -> None:
    output = nights.runs[0].output
    assert "column 'id' (keep) has 240 distinct values for 240 records" in output
    assert "nearly identifies a person" in output
    plan = json.loads(nights.releases("guard_records")[0]["release_plan"])
    assert plan["nearly_unique"] == [{"column": "id", "role": "keep", "distinct": 240, "of": 240}]
    # the sensitive column (5 diagnoses) and the person (an identifier, pseudonymized) are not flagged
    assert "column 'diagnosis'" not in output


def test_a_record_release_suppression_rate_is_its_share_of_records(nights: Nights) -> None:
    """Issue 30, item 7: the share of records, as the budget is checked, not of classes."""
    for release in nights.releases("guard_records"):
        if release["status"] != "RELEASED":
            continue
        plan = json.loads(release["release_plan"])
        suppressed = plan["records_in"] - plan["records_out"]
        assert float(release["suppression_rate"]) == pytest.approx(suppressed / plan["records_in"], abs=1e-6)


def test_night_2_reports_the_small_changes_around_a_hidden_cell(nights: Nights) -> None:
    """Tue Saves stays hidden (3 -> 4 people), yet the Tuesday, Saves and grand totals each rise by
    one: three published values changed by 1 to k-1, on the trail and warned about."""
    assert nights.runs[1].ok, nights.runs[1].output[-3000:]
    second = nights.releases("guard_table")[1]
    assert second["status"] == "RELEASED"
    compared = ("rows_compared", "rows_changed_small", "rows_appeared", "rows_disappeared")
    assert tuple(second[name] for name in compared) == (18, 3, 0, 0)
    assert "3 of 18 row(s) published before changed by 1 to 4 since the previous release" in nights.runs[1].output
    # a class of records grew by one person: one class of records changed by less than k
    records = nights.releases("guard_records")[1]
    assert records["rows_changed_small"] >= 1 and records["rows_compared"] >= 1
    assert "class(es) of records published before changed" in nights.runs[1].output


def test_night_2_warns_that_the_pseudonym_key_changed(nights: Nights) -> None:
    first, second = nights.releases("guard_records")[:2]
    assert first["key_fingerprint"] and second["key_fingerprint"]
    assert first["key_fingerprint"] != second["key_fingerprint"]
    assert len(first["key_fingerprint"]) == 16
    output = nights.runs[1].output
    assert f"the pseudonym key changed since the previous release (key fingerprint {second['key_fingerprint']}, " \
           f"was {first['key_fingerprint']})" in output
    assert "the pseudonym key changed" not in nights.runs[0].output
    # never the key itself
    for key in (KEY_A, KEY_B):
        assert key not in output and key not in json.dumps(nights.releases("guard_records"), default=str)


def test_night_3_refuses_small_changes_when_asked(nights: Nights) -> None:
    third_table = nights.releases("guard_table")[2]
    assert third_table["status"] == "REFUSED" and third_table["failed_check"] == "small_change"
    assert "changed by 1 to 4 people since the previous release, and on_small_change='refuse'" in third_table["reason"]
    third_records = nights.releases("guard_records")[2]
    assert third_records["status"] == "REFUSED" and third_records["failed_check"] == "small_change"
    # the previous releases stay
    assert nights.marts[2]["guard_table"] == nights.marts[1]["guard_table"]
    assert nights.marts[2]["guard_records"] == nights.marts[1]["guard_records"]


def test_a_refusal_while_compiling_is_on_the_trail(nights: Nights) -> None:
    """protection=1000 is refused before the gate runs: kanon's on-run-end records it."""
    assert "protection=1000 cannot be met" in nights.runs[2].output
    [row] = nights.releases("guard_table_wide")
    assert row["status"] == "REFUSED" and row["failed_check"] == "compile"
    assert row["reason"].startswith(
        "kanon.release_table in model.guard_host.guard_table_wide: protection=1000 cannot be met")
    # the gate's own refusals are not written twice
    assert [r["failed_check"] for r in nights.releases("guard_table")].count("small_change") == 1


def test_night_4_an_empty_input_keeps_every_previous_release(nights: Nights) -> None:
    assert not nights.runs[3].ok
    for report in KINDS:
        last = nights.releases(report)[3]
        assert (last["status"], last["failed_check"], last["input_rows"]) == ("REFUSED", "input_empty", 0), report
        assert "allow_empty_input=true" in last["reason"]
        assert nights.marts[3][report] == nights.marts[2][report] > 0, report


def test_night_5_an_input_that_lost_most_of_its_rows_is_refused(nights: Nights) -> None:
    # a hand-written model's input is its own published rows: still a row per day, not refused
    assert nights.releases("guard_hand")[4]["status"] == "RELEASED"
    for report in KINDS[:3]:
        last = nights.releases(report)[4]
        assert (last["status"], last["failed_check"]) == ("REFUSED", "input_shrink"), (report, last)
        assert "more than max_input_shrink=0.5" in last["reason"]
        assert nights.marts[4][report] == nights.marts[2][report], report


def test_night_6_the_opt_outs_publish(nights: Nights) -> None:
    assert nights.runs[5].ok, nights.runs[5].output[-3000:]
    for report in KINDS:
        assert nights.releases(report)[-1]["status"] == "RELEASED", report
    assert nights.releases("guard_records")[5]["input_rows"] == 80


def test_the_opt_outs_are_checked(nights: Nights) -> None:
    variables = '{"max_input_shrink": 2, "allow_empty": "yes"}'
    result = nights.project.run("run", "--select", "guard_hand", "--vars", variables, expect_ok=False)
    assert "max_input_shrink must be a share from 0 to 1" in result.output
