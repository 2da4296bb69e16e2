"""The example-data generator: determinism, the committed seeds, planted thin cells, outputs.

Fast and dbt-free. The Postgres test follows the suite's rule: skipped with a reason when
Postgres is unreachable, failed instead under CI=true.
"""

from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import uuid
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from kanon_tools.cli import generate as generate_cli
from kanon_tools.dev import catalog
from kanon_tools.dev import generate as gen
from kanon_tools.warehouse import postgres_params
from support import IN_CI, ROOT
from support.warehouses import postgres_unavailable_reason

SEEDS = ROOT / "seeds" / "example"
SEED_FILES = ("circulation_events", "hierarchy_title", "hierarchy_branch", "hierarchy_age_band")
HEX16 = re.compile(r"[0-9a-f]{16}")
DIMENSIONS = {"title": "title", "branch": "branch", "age_band": "age_band"}


def _run_cli(argv: list[str] | tuple[str, ...]) -> int:
    """The `generate` sub-command on its own parser (as kanon_tools.cli registers it)."""
    parser = argparse.ArgumentParser()
    generate_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    return int(args.func(args))


def _read_csv(path: Path) -> tuple[list[str], list[tuple[str, ...]]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], [tuple(row) for row in rows[1:]]


def _events(path: Path) -> list[tuple[str, ...]]:
    header, rows = _read_csv(path)
    assert header == list(gen.EVENT_COLUMNS)
    return rows


def _thin_share(rows: list[tuple[str, ...]], key: dict[str, str] | None = None) -> float:
    """Share of branch x age band x title (or x title's parent) cells with < 5 distinct patrons."""
    cells: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for token, branch, age, title, _ in rows:
        cells[(branch, age, key[title] if key else title)].add(token)
    return sum(len(p) < 5 for p in cells.values()) / len(cells)


@pytest.fixture(scope="module")
def committed() -> list[tuple[str, ...]]:
    return _events(SEEDS / "circulation_events.csv")


# ---- determinism and the committed seeds --------------------------------------------------


def test_committed_seeds_are_what_the_documented_command_writes(tmp_path: Path) -> None:
    command = "python -m kanon_tools " + " ".join(gen.SEED_COMMAND)
    docstring = " ".join((gen.__doc__ or "").replace("\\\n", " ").split())  # join `\` continuations
    assert command in docstring, "the module docstring must quote the seed command"
    assert command in (SEEDS / "_example_seeds.yml").read_text(encoding="utf-8")
    # Run it in a fresh interpreter with another hash seed: nothing may depend on set/dict order.
    script = (
        "import argparse, sys\n"
        "from kanon_tools.cli import generate as g\n"
        "p = argparse.ArgumentParser(); g.register(p.add_subparsers(dest='c', required=True))\n"
        "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))\n"
    )
    helpers = os.pathsep.join(filter(None, [str(ROOT / "python_helpers"), os.environ.get("PYTHONPATH")]))
    env = dict(os.environ, PYTHONHASHSEED="12345", PYTHONPATH=helpers)
    proc = subprocess.run(
        [sys.executable, "-c", script, *gen.SEED_COMMAND],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    for name in SEED_FILES:
        fresh = (tmp_path / "seeds" / "example" / f"{name}.csv").read_bytes()
        assert fresh == (SEEDS / f"{name}.csv").read_bytes(), f"{name}.csv differs: rerun the seed command"


def test_defaults_are_the_committed_seed_arguments() -> None:
    parser = argparse.ArgumentParser()
    generate_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["generate", "--out-csv", "x.csv"])
    assert (args.events, args.seed, args.key, args.year) == (5000, gen.DEFAULT_SEED, gen.DEFAULT_KEY, 2025)
    assert args.patrons is None and args.titles is None


def test_same_arguments_give_identical_csv_bytes(tmp_path: Path) -> None:
    for run in ("a", "b"):
        out = tmp_path / run
        gen.write_csv(out / "circulation_events.csv", hierarchy_dir=out, events=3000, seed=7, titles=400)
    for name in SEED_FILES:
        assert (tmp_path / "a" / f"{name}.csv").read_bytes() == (tmp_path / "b" / f"{name}.csv").read_bytes()


def test_a_different_seed_or_key_gives_different_events(tmp_path: Path) -> None:
    gen.write_csv(tmp_path / "s1.csv", events=2000, seed=1)
    gen.write_csv(tmp_path / "s2.csv", events=2000, seed=2)
    gen.write_csv(tmp_path / "k.csv", events=2000, seed=1, key="another key")
    s1, s2, k = (_events(tmp_path / f) for f in ("s1.csv", "s2.csv", "k.csv"))
    assert s1 != s2
    # The key changes the tokens only, never who borrowed what.
    assert [r[1:] for r in s1] == [r[1:] for r in k]
    assert {r[0] for r in s1}.isdisjoint({r[0] for r in k})


def test_parquet_is_byte_identical_and_holds_the_csv_rows(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    for run in ("a", "b"):
        gen.write_parquet(tmp_path / run / "events.parquet", events=20_000, seed=3)
    a, b = tmp_path / "a", tmp_path / "b"
    for name in ("events", "events_hierarchy_title", "events_hierarchy_branch", "events_hierarchy_age_band"):
        assert (a / f"{name}.parquet").read_bytes() == (b / f"{name}.parquet").read_bytes(), name
    gen.write_csv(tmp_path / "events.csv", events=20_000, seed=3)
    table = pq.read_table(a / "events.parquet")
    stamps = [str(t) for t in table.column("borrowed_at").to_numpy().astype("datetime64[s]")]
    strings = [table.column(c).to_pylist() for c in gen.EVENT_COLUMNS[:4]]
    rows = list(zip(*strings, [s.replace("T", " ") for s in stamps], strict=True))
    assert rows == _events(tmp_path / "events.csv")


# ---- what the committed example holds -----------------------------------------------------


def test_committed_example_size(committed: list[tuple[str, ...]]) -> None:
    assert len(committed) == 5000
    assert 600 <= len({r[0] for r in committed}) <= 800
    assert len({r[3] for r in committed}) > 250
    assert {r[2] for r in committed} == set(catalog.AGE_BANDS)
    assert {r[1] for r in committed} == {b for b, _, _ in catalog.BRANCHES}
    assert all(r[4].startswith("2025-") for r in committed)
    assert [r[4] for r in committed] == sorted(r[4] for r in committed), "events are in time order"


def test_the_documented_thin_cells_hold_exactly(committed: list[tuple[str, ...]]) -> None:
    def rows_of(title: str) -> list[tuple[str, ...]]:
        return [r for r in committed if r[3] == title]

    coping = rows_of("Coping With a Parent's Incarceration")
    assert {(r[1], r[2]) for r in coping} == {("RIVERSIDE", "13-17")}
    assert len({r[0] for r in coping}) == 1 and len(coping) == 2  # one person, two loans

    dementia = rows_of("Living With Dementia: A Family Guide")
    assert {r[2] for r in dementia} == {"65+"} and len({r[1] for r in dementia}) == 1
    assert len({r[0] for r in dementia}) == 2

    abuse = rows_of("Leaving an Abusive Relationship")
    assert {r[1] for r in abuse} == {"CENTRAL"} and len({r[0] for r in abuse}) == 1


def _check_planted(rows: list[tuple[str, ...]]) -> None:
    """Every planted title is borrowed exactly as catalog.PLANTED says, and by nobody else."""
    want: dict[tuple[str, str, str], tuple[int, int]] = defaultdict(lambda: (0, 0))
    for cell in catalog.PLANTED:
        patrons, loans = want[(cell.title, cell.branch, cell.age_band)]
        want[(cell.title, cell.branch, cell.age_band)] = (patrons + len(cell.loans), loans + sum(cell.loans))
    planted_titles = {cell.title for cell in catalog.PLANTED}
    got_patrons: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    got_loans: dict[tuple[str, str, str], int] = defaultdict(int)
    for token, branch, age, title, _ in rows:
        if title in planted_titles:
            got_patrons[(title, branch, age)].add(token)
            got_loans[(title, branch, age)] += 1
    assert {cell: (len(p), got_loans[cell]) for cell, p in got_patrons.items()} == dict(want)
    # a planted patron appears in one planted cell only
    all_planted = [t for p in got_patrons.values() for t in p]
    assert len(all_planted) == len(set(all_planted))


def test_all_planted_cells_hold_exactly_in_the_committed_seed(committed: list[tuple[str, ...]]) -> None:
    _check_planted(committed)


def test_patron_tokens_are_keyed_hashes_not_ids(committed: list[tuple[str, ...]]) -> None:
    tokens = {r[0] for r in committed}
    assert all(HEX16.fullmatch(t) for t in tokens)
    expected = {gen.patron_token(gen.DEFAULT_KEY, i) for i in range(1, gen.GeneratorConfig().n_patrons + 1)}
    assert tokens <= expected
    assert not any(t.isdigit() for t in tokens)
    # the vectorized HMAC equals the library one, for short, long (> block size) and non-ASCII keys
    for key in ("k", "x" * 100, "clé secrète"):
        fast = gen.patron_tokens_hex(key, 50)
        assert [bytes(row).decode() for row in fast] == [gen.patron_token(key, i) for i in range(1, 51)]


def test_heavy_tail_makes_most_title_cells_thin(committed: list[tuple[str, ...]]) -> None:
    assert _thin_share(committed) > 0.8
    per_patron = sorted(
        np.unique([r[0] for r in committed], return_counts=True)[1].tolist(), reverse=True
    )
    assert per_patron[0] >= 10 * float(np.median(per_patron)), "a few heavy borrowers"
    per_title = sorted(np.unique([r[3] for r in committed], return_counts=True)[1].tolist(), reverse=True)
    assert per_title[0] >= 10 * float(np.median(per_title)), "a few bestsellers"


# ---- hierarchies ----------------------------------------------------------------------------


def _hierarchy(name: str) -> tuple[list[str], list[tuple[str, ...]]]:
    return _read_csv(SEEDS / f"hierarchy_{name}.csv")


@pytest.mark.parametrize("name", ["title", "branch", "age_band"])
def test_hierarchy_seed_format(name: str) -> None:
    header, rows = _hierarchy(name)
    assert header == [f"level_{i}" for i in range(len(header))] and len(header) >= 3
    assert all(len(r) == len(header) for r in rows)
    assert {r[-1] for r in rows} == {"*"}, "a single root"
    assert len({r[0] for r in rows}) == len(rows), "one row per leaf"
    for level in range(1, len(header)):
        parents: dict[str, set[str]] = defaultdict(set)
        for r in rows:
            parents[r[level - 1]].add(r[level])
        assert all(len(p) == 1 for p in parents.values()), f"level_{level - 1} values need one parent"
    assert all(all(v.strip() == v and v for v in r) for r in rows)


def test_hierarchy_contents() -> None:
    assert _hierarchy("age_band") == (
        ["level_0", "level_1", "level_2"],
        [
            ("13-17", "13-24", "*"),
            ("18-24", "13-24", "*"),
            ("25-44", "25-64", "*"),
            ("45-64", "25-64", "*"),
            ("65+", "65+", "*"),
        ],
    )
    _, branches = _hierarchy("branch")
    assert 7 <= len(branches) <= 9 and {"CENTRAL", "RIVERSIDE"} <= {r[0] for r in branches}
    assert all(r[0] == r[0].upper() for r in branches)
    assert 3 <= len({r[1] for r in branches}) <= 4
    header, titles = _hierarchy("title")
    assert len(header) == 4
    assert 250 <= len(titles) <= 500
    assert 20 <= len({r[1] for r in titles}) <= 30 and 6 <= len({r[2] for r in titles}) <= 8
    leaves = {r[0] for r in titles}
    for awkward in ("Les Misérables", "Cien años de soledad", '"Hello," She Lied', "Charlotte's Web", "1984"):
        assert awkward in leaves
    assert ("Coping With a Parent's Incarceration", "Family & Relationships", "Social Sciences", "*") in titles


def test_every_event_value_is_a_hierarchy_leaf(committed: list[tuple[str, ...]]) -> None:
    for column, name in ((3, "title"), (1, "branch"), (2, "age_band")):
        leaves = {r[0] for r in _hierarchy(name)[1]}
        assert {r[column] for r in committed} <= leaves, name


def test_synthetic_titles_extend_the_catalog(tmp_path: Path) -> None:
    n_catalog = len(catalog.catalog_titles())
    gen.write_csv(tmp_path / "e.csv", hierarchy_dir=tmp_path, events=4000, titles=n_catalog + 1000, seed=5)
    _, titles = _read_csv(tmp_path / "hierarchy_title.csv")
    assert len(titles) == n_catalog + 1000
    synthetic = titles[n_catalog:]
    assert synthetic[0][0] == "Title 000001" and synthetic[-1][0] == "Title 001000"
    assert {r[1] for r in synthetic} == {s.name for s in catalog.SUBJECTS}
    events = _events(tmp_path / "e.csv")
    assert any(r[3].startswith("Title ") for r in events)
    assert {r[3] for r in events} <= {r[0] for r in titles}


def test_default_scaling() -> None:
    n_catalog = len(catalog.catalog_titles())
    assert gen.GeneratorConfig(events=5000).n_titles == n_catalog
    assert gen.GeneratorConfig(events=10_000_000).n_titles == 400_000
    assert gen.GeneratorConfig(events=10_000_000).n_patrons == 10_000_000 // gen.EVENTS_PER_PATRON
    assert gen.GeneratorConfig(events=10_000_000, titles=5000, patrons=123).n_titles == 5000
    with pytest.raises(ValueError):
        gen.GeneratorConfig(events=5000, titles=10).validate()


# ---- profiles ---------------------------------------------------------------------------------


def _cells(rows: list[tuple[str, ...]]) -> int:
    return len({(branch, age, title) for _, branch, age, title, _ in rows})


def test_the_thinner_profile_is_deterministic_and_thinner_than_the_default(tmp_path: Path) -> None:
    for run in ("a", "b"):
        gen.write_csv(tmp_path / run / "circulation_events.csv", hierarchy_dir=tmp_path / run, events=20_000,
                      seed=5, profile="thinner")
    for name in SEED_FILES:
        assert (tmp_path / "a" / f"{name}.csv").read_bytes() == (tmp_path / "b" / f"{name}.csv").read_bytes(), name
    gen.write_csv(tmp_path / "default.csv", events=20_000, seed=5)
    thinner, default = _events(tmp_path / "a" / "circulation_events.csv"), _events(tmp_path / "default.csv")
    assert len(thinner) == len(default) == 20_000
    # more finest cells, and a larger share of them below 5 people (measured: 97% against 92%)
    assert _cells(thinner) > 1.15 * _cells(default)
    assert _thin_share(thinner) > 0.95 > _thin_share(default)
    _check_planted(thinner)


def test_profiles_scale_patrons_and_titles() -> None:
    thinner = gen.GeneratorConfig(events=10_000_000, profile="thinner")
    # the target workload: 10M events, 500k people, a long flat catalog
    assert (thinner.n_patrons, thinner.n_titles, thinner.title_rank_offset) == (500_000, 333_333, 333_333.0)
    default = gen.GeneratorConfig(events=10_000_000)
    assert (default.n_patrons, default.n_titles, default.title_rank_offset) == (
        10_000_000 // gen.EVENTS_PER_PATRON, 400_000, gen.TITLE_RANK_OFFSET)
    assert gen.GeneratorConfig(events=10_000_000, profile="thinner", patrons=123, titles=5000).n_titles == 5000
    with pytest.raises(ValueError, match="profile must be one of default, thinner"):
        gen.GeneratorConfig(profile="thinnest").validate()


def test_cli_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run_cli(["generate", "--events", "3000", "--profile", "thinner", "--quiet",
                     "--out-csv", str(tmp_path / "cli.csv")]) == 0
    gen.write_csv(tmp_path / "api.csv", events=3000, profile="thinner")
    assert (tmp_path / "cli.csv").read_bytes() == (tmp_path / "api.csv").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        _run_cli(["generate", "--profile", "thinnest", "--out-csv", str(tmp_path / "x.csv")])
    assert exit_info.value.code == 2
    assert "invalid choice: 'thinnest'" in capsys.readouterr().err
    assert not (tmp_path / "x.csv").exists()


# ---- chunking, warehouses ---------------------------------------------------------------------


def test_chunks_follow_each_other_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gen, "CHUNK_EVENTS", 25_000)
    config = gen.GeneratorConfig(events=80_000, seed=9)
    tables = list(gen.iter_event_tables(config))
    assert len(tables) == 4 and sum(t.num_rows for t in tables) == 80_000
    stamps = np.concatenate([t.column("borrowed_at").to_numpy() for t in tables])
    assert (np.diff(stamps.astype(np.int64)) >= 0).all()
    assert str(stamps[0])[:4] == str(stamps[-1])[:4] == "2025"
    rows = [r for t in tables for r in zip(*(t.column(c).to_pylist() for c in gen.EVENT_COLUMNS), strict=True)]
    _check_planted(rows)


def test_sampler_equals_searchsorted() -> None:
    rng = np.random.default_rng(0)
    for n in (1, 2, 7, 1000, 50_000):
        weights = rng.pareto(1.0, n) * rng.integers(0, 2, n) + 1e-3 * rng.integers(0, 2, n)
        weights[0] += 0.5  # zero weights allowed, but not all of them
        cum = np.cumsum(weights)
        x = np.concatenate([rng.random(20_000) * cum[-1], cum, np.nextafter(cum, 0), [0.0, cum[-1]]])
        assert np.array_equal(gen.Sampler(cum).search(x), np.searchsorted(cum, x, side="right")), n


def test_duckdb_write_matches_the_csv_path(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    events, seed = 200_000, 11
    gen.write_csv(tmp_path / "events.csv", hierarchy_dir=tmp_path, events=events, seed=seed)
    want = _events(tmp_path / "events.csv")
    for name in ("a", "b"):
        summary = gen.write_duckdb(tmp_path / f"{name}.duckdb", "bench.events", events=events, seed=seed)
        assert summary.events == 200_000
    got = []
    for name in ("a", "b"):
        con = duckdb.connect(str(tmp_path / f"{name}.duckdb"), read_only=True)
        try:
            got.append(
                con.execute(
                    "select patron_token, branch, age_band, title, strftime(borrowed_at, '%Y-%m-%d %H:%M:%S') "
                    "from bench.events"
                ).fetchall()
            )
            for dim in DIMENSIONS:
                table = con.execute(f"select * from bench.events_hierarchy_{dim}").fetchall()
                assert table == _read_csv(tmp_path / f"hierarchy_{dim}.csv")[1], dim
            types = con.execute(
                "select data_type from information_schema.columns where table_name = 'events' order by ordinal_position"
            ).fetchall()
            assert [t for (t,) in types] == ["VARCHAR"] * 4 + ["TIMESTAMP"]
        finally:
            con.close()
    assert got[0] == got[1], "same arguments, same rows"
    assert [tuple(r) for r in got[0]] == want, "DuckDB and CSV hold the same rows in the same order"
    _check_planted(want)
    assert _thin_share(want) > 0.5


def test_postgres_write(tmp_path: Path) -> None:
    reason = postgres_unavailable_reason()
    if reason:
        if IN_CI:
            pytest.fail(f"{reason}; CI requires the Postgres tests", pytrace=False)
        pytest.skip(reason)
    import psycopg2

    schema = f"kt_generate_{uuid.uuid4().hex[:8]}"
    gen.write_csv(tmp_path / "events.csv", hierarchy_dir=tmp_path, events=3000, seed=4)
    conn = psycopg2.connect(**postgres_params())
    conn.autocommit = True
    try:
        gen.write_postgres(f"{schema}.events", events=3000, seed=4)
        cur = conn.cursor()
        cur.execute(
            "select patron_token, branch, age_band, title, to_char(borrowed_at, 'YYYY-MM-DD HH24:MI:SS') "
            f'from "{schema}".events'
        )
        assert sorted(cur.fetchall()) == sorted(_events(tmp_path / "events.csv"))
        for dim in DIMENSIONS:
            cur.execute(f'select * from "{schema}".events_hierarchy_{dim}')
            assert sorted(cur.fetchall()) == sorted(_read_csv(tmp_path / f"hierarchy_{dim}.csv")[1]), dim
    finally:
        conn.cursor().execute(f'drop schema if exists "{schema}" cascade')
        conn.close()


# ---- CLI --------------------------------------------------------------------------------------


def test_cli_needs_an_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert _run_cli(["generate", "--events", "100"]) == 2
    assert "nothing to write" in capsys.readouterr().err
    assert _run_cli(["generate", "--events", "10", "--out-csv", "/dev/null"]) == 2  # below the planted cells


@pytest.mark.parametrize(
    ("text", "value"), [("5000", 5000), ("5_000", 5000), ("10k", 10_000), ("10M", 10_000_000), ("1e7", 10_000_000)]
)
def test_counts_accept_suffixes(text: str, value: int) -> None:
    assert generate_cli.events_count(text) == value


def test_cli_writes_several_outputs_from_one_pass(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    argv = ["generate", "--events", "1500", "--seed", "3", "--quiet", "--out-csv", str(tmp_path / "e.csv")]
    argv += ["--duckdb", str(tmp_path / "e.duckdb"), "--table", "ev", "--hierarchy-prefix", "h_"]
    assert _run_cli(argv) == 0
    con = duckdb.connect(str(tmp_path / "e.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from ev").fetchone() == (1500,)
        names = {n for (n,) in con.execute("select table_name from information_schema.tables").fetchall()}
        assert names == {"ev", "h_title", "h_branch", "h_age_band"}
    finally:
        con.close()
    assert len(_events(tmp_path / "e.csv")) == 1500
