"""A tiny run of the benchmark, so that `make bench` cannot rot. No timing assertions: the
figures come from `make bench` (BENCHMARKS.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support import ROOT

pytestmark = pytest.mark.dbt


def test_bench_smoke_run_writes_tables_and_plot(warehouse_kind: str, tmp_path: Path) -> None:
    sizes = ["--sizes", "20k", "--postgres-sizes", ""] if warehouse_kind == "duckdb" else \
        ["--sizes", "", "--postgres-sizes", "20k"]
    out, plot = tmp_path / "BENCHMARKS.md", tmp_path / "bench.png"
    proc = subprocess.run(
        # --no-memory: dbt in the command's process, without 13 process starts (the process and its
        # peak memory are bench-records' and bench-file's smoke runs' to check)
        [sys.executable, "-m", "kanon_tools", "bench", *sizes, "--repeats", "1", "--quiet", "--no-memory",
         "--workdir", str(tmp_path / "work"), "--out", str(out), "--plot", str(plot)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = out.read_text()
    assert f"## {warehouse_kind}, 20k events" in report
    assert "| release / floor | engine s | engine / floor |" in report
    assert "| trail rows / release | trail MB / release |" in report
    rows = {}
    for report_name, dims in (("thin", "title"), ("thinner", "title"), ("dense", "subject")):
        line = next(line for line in report.splitlines()
                    if line.startswith(f"| {report_name} (branch x age_band x {dims}) |"))
        rows[report_name] = [cell.strip() for cell in line.strip("|").split("|")]
    cells = {name: int(row[1].replace(",", "")) for name, row in rows.items()}
    thin = {name: int(row[2].rstrip("%")) for name, row in rows.items()}
    # the thinner profile's report: more finest cells than the default's, a larger share of them below k
    assert cells["thinner"] > cells["thin"] > cells["dense"] > 0
    assert thin["thinner"] > thin["thin"] > thin["dense"]
    for row in rows.values():
        assert row[11] == "– / –", row  # peak memory, left out under --no-memory
        # one release wrote the trail: its one summary row, and more about what it decided
        assert "releases 1" in row[-2] and int(row[-2].split()[0].replace(",", "")) > 1, row
        assert float(row[-1]) >= 0, row
    assert "A nightly release for a year (x 365) adds to the audit trail: thin " in report
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_bench_records_smoke_run(warehouse_kind: str, tmp_path: Path) -> None:
    """`python -m kanon_tools bench-records` on 2,000 synthetic people: its table, with the
    release's own figures from the audit trail."""
    sizes = ["--sizes", "2k", "--postgres-sizes", ""] if warehouse_kind == "duckdb" else \
        ["--sizes", "", "--postgres-sizes", "2k"]
    out = tmp_path / "records.md"
    proc = subprocess.run(
        [sys.executable, "-m", "kanon_tools", "bench-records", *sizes, "--no-adult",
         "--workdir", str(tmp_path / "work"), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    lines = out.read_text().splitlines()
    prefix = f"| {warehouse_kind} | records | non_uniform_entropy | 2,000 |"
    row = next(line for line in lines if line.startswith(prefix))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[4] == "2,000"  # the lattice of the five quasi-identifiers
    nodes = int(cells[5].replace(",", ""))
    assert 0 < nodes <= 2000  # nodes evaluated
    assert int(cells[6].replace(",", "")) >= 10  # statements: the scan, the search, the gate, the trail, the swap
    assert float(cells[9]) > 0 and float(cells[10]) > 0  # release and floor seconds


def test_bench_file_smoke_run(tmp_path: Path) -> None:
    """`python -m kanon_tools bench-file` on a few hundred people: kanon-records inspect, plan and
    run as a user runs them, each measured, and the released file written."""
    out = tmp_path / "file.md"
    proc = subprocess.run(
        [sys.executable, "-m", "kanon_tools", "bench-file", "--rows", "400", "--inspect-rows", "300",
         "--repeats", "1", "--workdir", str(tmp_path / "work"), "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = {line.split("|")[1].strip(): [cell.strip() for cell in line.strip("|").split("|")]
            for line in out.read_text().splitlines() if line.startswith(("| inspect", "| plan", "| run"))}
    assert sorted(rows) == ["inspect", "plan", "run"]
    assert [rows[c][1] for c in ("inspect", "plan", "run")] == ["300", "300", "400"]
    for cells in rows.values():
        assert float(cells[2]) > 0 and float(cells[3].split()[0]) > 0 and float(cells[4].replace(",", "")) > 50
        assert cells[6] in ("yes", "no")
    released = (tmp_path / "work" / "released.csv").read_text(encoding="utf-8").splitlines()
    assert 0 < len(released) - 1 <= 400
    # every column the configuration publishes, and not the id, which it drops
    assert released[0].split(",") == ["生年月日", "年齢", "性別", "郵便番号", "都道府県", "年収"]
    # the file the figures stand for (issue 49): a prefix column of many distinct values
    assert "400 people, 郵便番号 3" in out.read_text(encoding="utf-8")


def test_bench_table_runs_and_its_figures_are_real(tmp_path: Path) -> None:
    """`python -m kanon_tools bench-table` on a tiny table (DuckDB): one markdown row whose
    figures are numbers, and 0 exact disclosures."""
    out = tmp_path / "bench_table.md"
    run = subprocess.run([sys.executable, "-m", "kanon_tools", "bench-table", "--rows", "30", "--columns", "8",
                          "--workdir", str(tmp_path / "work"), "--out", str(out)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    rows = [line for line in out.read_text().splitlines() if line.startswith("| duckdb |")]
    assert len(rows) == 1 and rows[0] in run.stdout
    fields = [field.strip().replace(",", "") for field in rows[0].strip("|").split("|")]
    assert fields[1] == "30 x 8"
    events, k, cells, primaries, secondaries, rounds = (int(v) for v in fields[2:8])
    search, release, floor, read, audit = (float(v) for v in fields[8:13])
    hidden, exact = int(fields[13]), int(fields[14])
    assert k == 5 and cells == 31 * 9 and events > 0 and primaries > 0 and rounds >= 0
    assert hidden == primaries + secondaries and exact == 0
    assert 0 < search <= release and floor > 0 and read > 0 and audit >= 0
