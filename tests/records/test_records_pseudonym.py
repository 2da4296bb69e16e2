"""Keyed-hash pseudonyms (kanon._records_pseudonym): HMAC-SHA-256 under a key that never lands in SQL.

A throwaway host project (installing kanon from this checkout) seeds text, non-ASCII text,
numbers and decimals, adds '' and NULL, and selects their pseudonyms. Each warehouse must give
Python's hmac.new(bytes.fromhex(key), text.encode(), 'sha256').hexdigest(), both must agree, and
after the run neither the key nor anything it can be derived from (the padded blocks K^ipad and
K^opad, sha256(key)) may be anywhere in the project, its target/ and logs/, or the DuckDB file.
A missing or malformed key fails at compile time with an error naming the variable, not the key.

The key reaches dbt as the tests' Warehouse (support.warehouses) builds every environment, plus
KANON_PSEUDONYM_KEY; for Postgres, kanon_tools.pseudonym_env turns it into PGOPTIONS, as a user
would.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from kanon_tools.dbt_runner import ANSI, DbtResult, DbtRunner
from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, key_status, pseudonym, pseudonym_env, setting_name
from kanon_tools.warehouse import postgres_params
from support import ROOT
from support.projects import KeyedProject
from support.warehouses import Warehouse, require_postgres

pytestmark = pytest.mark.dbt

# Fixed test keys (never used anywhere real): 32 bytes, exactly one SHA-256 block (64 bytes), and
# 80 bytes, which HMAC hashes down to 32 before padding.
KEY = "7b2f0c9e41d8a3665e1f0b9c2d7a48e3f5c1b06a9d2e7f4830c5a1b9e6d2f047"
KEY_BLOCK = hashlib.sha256(b"kanon pseudonym test: block-sized key").hexdigest() * 2
KEY_LONG = hashlib.sha512(b"kanon pseudonym test: long key").hexdigest() + "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
OTHER_ENV = "ACME_PSEUDONYM_KEY"
OTHER_KEY = "c4" * 16 + "5e" * 16

SEED = (
    "id,label,num,amount\n"
    "1,alice,42,12.50\n"
    "2,東京都,-7,0.05\n"
    "3,é,0,-3.00\n"
    '4,"O\'Brien, Jr.",123456789,100.00\n'
    "5,,,\n"
)
# what each warehouse's cast to text must give for the seeded and added rows: (id, label, num, amount)
TEXTS: list[tuple[int, str | None, str | None, str | None]] = [
    (1, "alice", "42", "12.50"),
    (2, "東京都", "-7", "0.05"),
    (3, "é", "0", "-3.00"),
    (4, "O'Brien, Jr.", "123456789", "100.00"),
    (5, None, None, None),
    (6, "", None, None),
]
MODEL = """{{ config(materialized='table') }}
{%- set key_env = var('pseudonym_key_env', 'KANON_PSEUDONYM_KEY') -%}
{%- do kanon._records_pseudonym_check(key_env, 'pseudonym test model') %}
with input as (
    select id, label, num, amount from {{ ref('pseudonym_values') }}
    union all
    select 6, '', cast(null as integer), cast(null as decimal(8, 2))
)
select
    id,
    {{ kanon._records_pseudonym('label', key_env) }} as label_p,
    {{ kanon._records_pseudonym('num', key_env) }} as num_p,
    {{ kanon._records_pseudonym('amount', key_env) }} as amount_p
from input
"""
# compiled, never run by dbt: the tests run its SQL themselves, on connections with and without a key
PROBE = "select {{ kanon._records_pseudonym('kanon_probe.v') }} as p from kanon_probe\n"


def expected(key: str) -> list[tuple[Any, ...]]:
    def p(text: str | None) -> str | None:
        return None if text is None else hmac.new(bytes.fromhex(key), text.encode(), "sha256").hexdigest()

    return [(i, p(label), p(num), p(amount)) for i, label, num, amount in TEXTS]


def secrets_of(key: str) -> dict[str, bytes]:
    """What must never be written anywhere: the key and what it can be derived from (HMAC's padded
    blocks, whole and their key-dependent part; sha256(key)), as lower/upper hex and raw bytes."""
    raw = bytes.fromhex(key)
    block = (raw if len(raw) <= 64 else hashlib.sha256(raw).digest()).ljust(64, b"\0")
    ipad, opad = bytes(b ^ 0x36 for b in block), bytes(b ^ 0x5C for b in block)
    keyed = min(len(raw), 64)
    found: dict[str, bytes] = {}
    for name, value in (("key", raw), ("K^ipad", ipad), ("K^opad", opad), ("K^ipad (key part)", ipad[:keyed]),
                        ("K^opad (key part)", opad[:keyed]), ("sha256(key)", hashlib.sha256(raw).digest())):
        found[f"{name} hex"] = value.hex().encode()
        found[f"{name} HEX"] = value.hex().upper().encode()
        found[f"{name} bytes"] = value
    return found


def files_under(*places: Path) -> list[Path]:
    """Every file under the places (a file is itself), except installed packages (kanon's checkout)."""
    out: list[Path] = []
    for place in places:
        if place.is_file():
            out.append(place)
        elif place.is_dir():
            out += [p for p in place.rglob("*") if p.is_file() and "dbt_packages" not in p.parts]
    return out


def leaks(files: Iterable[Path], needles: Mapping[str, bytes]) -> list[str]:
    """'<file>: <what>' for each needle found in a file's bytes."""
    found = []
    for path in files:
        data = path.read_bytes()
        found += [f"{path}: {name}" for name, needle in needles.items() if needle in data]
    return found


def model_error(result: DbtResult, model: str) -> str:
    """The message of a model's error in dbt's summary: the line below "... Error in model <model>"."""
    lines = [ANSI.sub("", line) for line in result.output.splitlines()]
    for at, line in enumerate(lines[:-1]):
        if f"Error in model {model} " in line:
            return lines[at + 1].strip()
    raise AssertionError(f"no error for model {model} in:\n{result.output[-3000:]}")


def write_project(path: Path) -> Path:
    for folder in ("models", "seeds", "analyses"):
        (path / folder).mkdir(parents=True, exist_ok=True)
    (path / "dbt_project.yml").write_text(
        "name: pseudonym_host\nversion: '1.0'\nconfig-version: 2\nprofile: kanon\n"
        "seeds:\n  pseudonym_host:\n    pseudonym_values:\n"
        "      +column_types: {id: integer, label: varchar(40), num: integer, amount: 'decimal(8,2)'}\n"
    )
    (path / "packages.yml").write_text(f"packages:\n  - local: {ROOT}\n")
    (path / "seeds" / "pseudonym_values.csv").write_text(SEED, encoding="utf-8")
    (path / "models" / "pseudonyms.sql").write_text(MODEL)
    (path / "analyses" / "pseudonym_probe.sql").write_text(PROBE)
    return path


class Built:
    """The host project built on one warehouse with KEY: its project, first run and probe SQL."""

    def __init__(self, project: KeyedProject, run: DbtResult) -> None:
        self.project = project
        self.run = run
        compiled = list((project.state_dir / "target" / "compiled").rglob("pseudonym_probe.sql"))
        assert len(compiled) == 1, compiled
        self.probe = compiled[0].read_text()

    @property
    def wh(self) -> Warehouse:
        return self.project.warehouse

    def rows(self) -> list[tuple[Any, ...]]:
        return sorted(self.wh.query(f"select id, label_p, num_p, amount_p from {self.wh.relation('pseudonyms')}"))


@pytest.fixture(scope="module")
def build_on(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Built]:
    """Factory: the project built on a warehouse kind, once per module (the agreement test needs both)."""
    made: dict[str, Built] = {}

    def _build(kind: str) -> Built:
        if kind not in made:
            wh = make_warehouse(kind, "pseud")
            project = KeyedProject(write_project(tmp_path_factory.mktemp(f"pseudonym_{kind}")), wh,
                                   {DEFAULT_KEY_ENV: KEY})
            project.run("deps")
            run = project.run("build", "--select", "pseudonym_values", "pseudonyms")
            project.run("compile", "--select", "pseudonym_probe")
            made[kind] = Built(project, run)
        return made[kind]

    return _build


@pytest.fixture(scope="module")
def built(warehouse_kind: str, build_on: Callable[[str], Built]) -> Built:
    return build_on(warehouse_kind)


# --- the values ---------------------------------------------------------------------------------

def test_pseudonyms_equal_pythons_hmac(built: Built) -> None:
    """ASCII, non-ASCII (東京都, é), a quote and comma, '', NULL, integers and decimals: each
    pseudonym is HMAC-SHA-256 of the UTF-8 text, lower-case hex; NULL stays NULL."""
    rows = built.rows()
    assert rows == expected(KEY)
    assert rows != expected(OTHER_KEY)  # the key matters
    assert all(len(p) == 64 and p == p.lower() for row in rows for p in row[1:] if p is not None)


def test_duckdb_and_postgres_agree(build_on: Callable[[str], Built]) -> None:
    require_postgres()
    duck, pg = build_on("duckdb").rows(), build_on("postgres").rows()
    assert duck == pg
    assert sum(p is not None for row in duck for p in row[1:]) == 13  # not an agreement on NULLs


def test_python_helper_is_the_same_hmac() -> None:
    """kanon_tools.pseudonym_env.pseudonym, the tests' expectation, against Python's hmac and RFC
    4231's test case 6 (a 131-byte key, which HMAC hashes first)."""
    assert pseudonym(KEY, "東京都") == hmac.new(bytes.fromhex(KEY), "東京都".encode(), hashlib.sha256).hexdigest()
    # RFC 4231 test case 2 ("Jefe") is too short for kanon; case 6's 131-byte key is long enough
    rfc_key = "aa" * 131
    assert pseudonym(rfc_key, "Test Using Larger Than Block-Size Key - Hash Key First") == (
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")


# --- where the key must not be ----------------------------------------------------------------

def test_the_key_lands_nowhere(built: Built, tmp_path: Path) -> None:
    """After the build: not in the project, target/ (compiled SQL, manifest, partial parse), logs/
    (dbt.log logs every statement at debug level, the check's included), nor the DuckDB file."""
    project = built.project
    files = files_under(*project.places())
    names = {p.name for p in files}
    # the scan covers what matters: the statements as run, and the log that records them
    assert {"dbt.log", "pseudonyms.sql", "manifest.json", "partial_parse.msgpack"} <= names, names
    log = (project.state_dir / "logs" / "dbt.log").read_text(encoding="utf-8")
    marker = "kanon_pseudonym_key_status('KANON_PSEUDONYM_KEY')" if built.wh.kind == "duckdb" \
        else "current_setting('kanon.pseudonym_key', true)"
    assert marker in log  # the check's statement was logged, and is scanned
    needles = secrets_of(KEY)
    assert leaks(files, needles) == []
    # the scan can fail: a file holding one of them is found
    canary = tmp_path / "canary.log"
    canary.write_bytes(b"select 1 -- " + needles["K^opad hex"])
    assert leaks([canary], needles) == [f"{canary}: K^opad hex", f"{canary}: K^opad (key part) hex"]


def test_no_key_in_the_postgres_statements_or_settings_of_other_sessions(built: Built) -> None:
    """On Postgres the key lives in the dbt session's setting only: the compiled SQL reads the
    setting and never holds it; a session started without PGOPTIONS does not have it."""
    if built.wh.kind != "postgres":
        pytest.skip("Postgres only: DuckDB reads the key in the plugin")
    assert "current_setting('kanon.pseudonym_key', true)" in built.probe
    assert built.wh.query("select current_setting('kanon.pseudonym_key', true)") in ([(None,)], [("",)])


# --- the key at run time, SQL run outside dbt -------------------------------------------------

KEYS = [KEY, KEY.upper(), KEY_BLOCK, KEY_LONG]
VALUES = ["alice", "東京都", "é", "", "0"]


def _run_probe(built: Built, key: str | None, values: list[str], monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The compiled probe on a fresh connection whose key is `key` (None: no key)."""
    if built.wh.kind == "duckdb":
        import duckdb
        from dbt.adapters.duckdb.plugins import BasePlugin

        if key is None:
            monkeypatch.delenv(DEFAULT_KEY_ENV, raising=False)
        else:
            monkeypatch.setenv(DEFAULT_KEY_ENV, key)
        conn = duckdb.connect()
        BasePlugin.create("kanon_tools.duckdb_pseudonym").configure_connection(conn)
        sql = "with kanon_probe as (select cast(? as varchar) as v) " + built.probe
        return [conn.execute(sql, [v]).fetchall()[0][0] for v in values]
    import psycopg2

    options = {} if key is None else {"options": f"-c kanon.pseudonym_key={key}"}
    conn = psycopg2.connect(**postgres_params(), **options)
    try:
        cur = conn.cursor()
        out = []
        for v in values:
            cur.execute("with kanon_probe as (select cast(%s as text) as v) " + built.probe, (v,))
            out.append(cur.fetchall()[0][0])
        return out
    finally:
        conn.close()


@pytest.mark.parametrize("key", KEYS, ids=["32 bytes", "upper case", "64 bytes", "80 bytes, hashed first"])
def test_every_key_length_gives_pythons_hmac(built: Built, key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    got = _run_probe(built, key, VALUES, monkeypatch)
    assert got == [pseudonym(key, v) for v in VALUES]


@pytest.mark.parametrize("key", [None, "g1" * 32, "cd" * 31], ids=["missing", "not hex", "too short"])
def test_a_statement_without_a_usable_key_fails_rather_than_giving_nulls(
    built: Built, key: str | None, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The guard for SQL run outside dbt's check (a view read later, a copied query)."""
    with pytest.raises(Exception) as raised:
        _run_probe(built, key, ["alice"], monkeypatch)
    message = str(raised.value)
    assert ("kanon.pseudonym_key" if built.wh.kind == "postgres" else DEFAULT_KEY_ENV) in message
    assert key_status(key) in message
    if key is not None:
        assert key not in message


def test_postgres_computes_the_blocks_once_per_statement(built: Built) -> None:
    """The padded blocks are uncorrelated subqueries: InitPlans, run once, not SubPlans per row."""
    if built.wh.kind != "postgres":
        pytest.skip("Postgres only")
    plan = "\n".join(str(r[0]) for r in built.wh.query(
        "explain with kanon_probe as (select g::text as v from generate_series(1, 1000) as g) " + built.probe))
    assert plan.count("InitPlan") == 2 and "SubPlan" not in plan, plan


# --- a key that cannot be used fails at compile time ------------------------------------------

BAD_KEYS = [
    ("missing", None, "is not set or empty"),
    ("odd length", "ab" * 32 + "c", "odd number of hex digits"),
    ("not hex", "g1" * 32, "is not hex text"),
    ("too short", "cd" * 31, "shorter than 32 bytes (64 hex digits)"),
]


@pytest.mark.parametrize(("case", "bad", "said"), BAD_KEYS, ids=[c for c, _, _ in BAD_KEYS])
def test_an_unusable_key_is_a_clear_compile_error(built: Built, case: str, bad: str | None, said: str) -> None:
    project = built.project.with_keys({DEFAULT_KEY_ENV: bad})
    result = project.run("run", "--select", "pseudonyms", expect_ok=False)
    error = model_error(result, "pseudonyms")
    assert error.startswith("pseudonym test model: "), error
    assert said in error and DEFAULT_KEY_ENV in error, error
    assert "secrets.token_hex(32)" in error  # how to make one
    if built.wh.kind == "postgres":
        assert "PGOPTIONS='-c kanon.pseudonym_key=<the key>'" in error
    if bad is not None:
        assert bad not in result.output
        assert leaks(files_under(*project.places()), {"bad key": bad.encode()}) == []
    assert key_status(bad) == case  # the Python verdict, which the plugin uses, agrees


def test_another_key_variable(built: Built) -> None:
    """key_env names the variable. On Postgres it becomes the setting kanon.acme_pseudonym_key;
    the DuckDB plugin refuses a variable it was not configured to serve."""
    assert setting_name(OTHER_ENV) == "kanon.acme_pseudonym_key"
    project = built.project.with_keys({DEFAULT_KEY_ENV: KEY, OTHER_ENV: OTHER_KEY})
    args = ("run", "--select", "pseudonyms", "--vars", f"{{pseudonym_key_env: {OTHER_ENV}}}")
    try:
        if built.wh.kind == "duckdb":
            error = model_error(project.run(*args, expect_ok=False), "pseudonyms")
            assert f"does not read the key from {OTHER_ENV}" in error and "key_envs" in error, error
            return
        project.run(*args)
        assert built.rows() == expected(OTHER_KEY)
        assert leaks(files_under(*project.places()), secrets_of(OTHER_KEY)) == []
    finally:
        built.project.run("run", "--select", "pseudonyms")  # back to KEY for the other tests
    assert built.rows() == expected(KEY)


def test_duckdb_without_the_plugin_says_how_to_add_it(built: Built, tmp_path: Path) -> None:
    if built.wh.kind != "duckdb":
        pytest.skip("DuckDB only")
    profile = (ROOT / "profiles.yml").read_text()
    plain = profile.replace("      plugins:\n        - module: kanon_tools.duckdb_pseudonym\n", "")
    assert plain != profile
    (tmp_path / "profiles.yml").write_text(plain)
    project = built.project.with_keys({DEFAULT_KEY_ENV: KEY})
    env = project.env() | {"DBT_PROFILES_DIR": str(tmp_path)}
    runner = DbtRunner(project.project_dir, env=env, target_path=project.state_dir / "target",
                       log_path=project.state_dir / "logs")
    error = model_error(runner.run("run", "--select", "pseudonyms"), "pseudonyms")
    assert "kanon_tools.duckdb_pseudonym is not loaded" in error and "plugins:" in error, error


# --- the Python pieces ------------------------------------------------------------------------

def test_pseudonym_env_builds_pgoptions() -> None:
    env = {"PGOPTIONS": "-c statement_timeout=0", DEFAULT_KEY_ENV: KEY, "OTHER": "x"}
    out = pseudonym_env(env)
    assert out["PGOPTIONS"] == f"-c statement_timeout=0 -c kanon.pseudonym_key={KEY}"
    assert env["PGOPTIONS"] == "-c statement_timeout=0"  # a copy
    assert pseudonym_env({"OTHER": "x"}) == {"OTHER": "x"}  # no key: unchanged, the check says so
    assert pseudonym_env({DEFAULT_KEY_ENV: "a b\\"})["PGOPTIONS"] == "-c kanon.pseudonym_key=a\\ b\\\\"
    with pytest.raises(ValueError):
        pseudonym_env({}, "lower_case")


@pytest.mark.parametrize(("raw", "verdict"), [
    (None, "missing"), ("", "missing"), ("0x" + KEY, "not hex"), (KEY[:32] + " " + KEY[32:], "not hex"),
    (KEY + "\n", "not hex"), (KEY + "a", "odd length"), (KEY[:62], "too short"), (KEY, "ok"), (KEY_LONG, "ok"),
])
def test_key_verdicts(raw: str | None, verdict: str) -> None:
    assert key_status(raw) == verdict


# the SQL kanon._records_pseudonym compiles to on DuckDB: the plugin's blocks, DuckDB's sha256
HMAC_SQL = ("select sha256((select kanon_hmac_block('{env}', 92)) "
            "|| unhex(sha256((select kanon_hmac_block('{env}', 54)) || encode('{value}'))))")


def test_the_plugin_serves_only_its_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any SQL in the session can call the UDF: it must not key a hash with another secret."""
    import duckdb
    from dbt.adapters.duckdb.plugins import BasePlugin

    monkeypatch.setenv("PGPASSWORD", KEY)
    monkeypatch.setenv(OTHER_ENV, OTHER_KEY)
    conn = duckdb.connect()
    BasePlugin.create("kanon_tools.duckdb_pseudonym", config={"key_envs": [OTHER_ENV]}).configure_connection(conn)
    assert conn.execute(HMAC_SQL.format(env=OTHER_ENV, value="x")).fetchall() == [(pseudonym(OTHER_KEY, "x"),)]
    assert conn.execute("select kanon_pseudonym_key_status('PGPASSWORD')").fetchall() == [("not served",)]
    with pytest.raises(duckdb.Error, match="not served") as raised:
        conn.execute(HMAC_SQL.format(env="PGPASSWORD", value="x")).fetchall()
    assert KEY not in str(raised.value)
    assert os.environ["PGPASSWORD"] == KEY  # untouched


def test_the_plugin_follows_a_changed_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived process whose key changes gets the new key's pseudonyms, or an error, never the old ones."""
    import duckdb
    from dbt.adapters.duckdb.plugins import BasePlugin

    conn = duckdb.connect()
    BasePlugin.create("kanon_tools.duckdb_pseudonym").configure_connection(conn)
    sql = HMAC_SQL.format(env=DEFAULT_KEY_ENV, value="alice")
    monkeypatch.setenv(DEFAULT_KEY_ENV, KEY)
    assert conn.execute(sql).fetchall() == [(pseudonym(KEY, "alice"),)]
    monkeypatch.setenv(DEFAULT_KEY_ENV, OTHER_KEY)
    assert conn.execute(sql).fetchall() == [(pseudonym(OTHER_KEY, "alice"),)]
    monkeypatch.setenv(DEFAULT_KEY_ENV, "cd" * 31)
    with pytest.raises(duckdb.Error, match=f"{DEFAULT_KEY_ENV} \\(too short\\)"):
        conn.execute(sql).fetchall()
