"""A tiny run of the benchmark, so that `make bench` cannot rot. No timing assertions: the
figures come from `make bench` (BENCHMARKS.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

pytestmark = pytest.mark.dbt


def test_bench_smoke_run_writes_tables_and_plot(warehouse_kind: str, tmp_path: Path) -> None:
    sizes = ["--sizes", "20k", "--postgres-sizes", ""] if warehouse_kind == "duckdb" else \
        ["--sizes", "", "--postgres-sizes", "20k"]
    out, plot = tmp_path / "BENCHMARKS.md", tmp_path / "bench.png"
    proc = subprocess.run(
        [sys.executable, "-m", "kanon_tools", "bench", *sizes, "--repeats", "1", "--quiet",
         "--workdir", str(tmp_path / "work"), "--out", str(out), "--plot", str(plot)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = out.read_text()
    assert f"## {warehouse_kind}, 20k events" in report
    assert "| release / floor | engine s | engine / floor |" in report
    for row in ("| thin (branch x age_band x title) |", "| dense (branch x age_band x subject) |"):
        assert row in report
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:4] == b"\x89PNG"
