"""The benchmarks' own bookkeeping, without a warehouse: the statements counted from dbt's log,
the loss metrics `bench-records` accepts, the releases `bench-spark` runs and its verdicts against
its targets. (The Spark benchmark itself starts a JVM per dbt run: `make bench` runs it, the suite
does not; the Spark module runs the same three kinds on Spark.)"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from kanon_tools.cli.bench_records import loss_list
from kanon_tools.cli.bench_spark import release_models
from kanon_tools.dev.bench import SparkSettings
from kanon_tools.dev.bench_records import statements_of_last_run
from kanon_tools.dev.bench_spark import DEFAULT_RELEASES, INPUTS, RELEASE_MODELS, Case, Timed, markdown
from kanon_tools.dev.lattice_rollup import PivotCost, class_counts, pivot_costs

LOG = """\
[0m10:00:00.000001 [debug] [Thread-1 (]: Began running node model.kanon_bench.records_release
[0m10:00:00.100000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:00.200000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:00.300000 [debug] [Thread-1 (]: Finished running node model.kanon_bench.records_release
[0m10:00:01.000001 [debug] [Thread-1 (]: Began running node model.kanon_bench.records_release_other
[0m10:00:01.100000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:01.200000 [debug] [Thread-1 (]: Finished running node model.kanon_bench.records_release_other
[0m10:00:02.000001 [debug] [Thread-1 (]: Began running node model.kanon_bench.records_release
[0m10:00:02.100000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:02.200000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:02.300000 [debug] [Thread-1 (]: SQL status: OK in 0.010 seconds
[0m10:00:02.400000 [debug] [Thread-1 (]: Finished running node model.kanon_bench.records_release
[0m10:00:02.500000 [debug] [MainThread]: SQL status: OK in 0.010 seconds
"""


def test_statements_are_counted_for_the_last_run_of_the_model_only(tmp_path: Path) -> None:
    log = tmp_path / "dbt.log"
    log.write_text(LOG)
    assert statements_of_last_run(log, "records_release") == 3
    assert statements_of_last_run(log, "records_release_other") == 1


def test_loss_metrics_are_kanons_own() -> None:
    assert loss_list("height, discernibility") == ["height", "discernibility"]
    for bad in ("", "entropy", "height,nue"):
        with pytest.raises(argparse.ArgumentTypeError, match="non_uniform_entropy"):
            loss_list(bad)


def test_the_spark_report_judges_each_median_against_its_target() -> None:
    fast = Timed(Case("release_thin", "counts of 20,000 events", 20), [25.0, 19.0, 18.0], 87)
    slow = Timed(Case("table_release", "a 6 x 4 table with totals", 45), [44.0, 46.0, 50.0], 524)
    text = markdown([fast, slow], SparkSettings(cores=2, memory="2g"), "python -m kanon_tools bench-spark")
    rows = [line for line in text.splitlines() if line.startswith("| counts") or line.startswith("| a 6")]
    assert rows == ["| counts of 20,000 events | release_thin | 19.0 (18.0-25.0) | 87 | 20 | yes |",
                    "| a 6 x 4 table with totals | table_release | 46.0 (44.0-50.0) | 524 | 45 | no |"]
    assert "local[2], driver memory 2g" in text


def test_a_release_at_size_is_judged_against_its_floor_timed_in_the_same_run() -> None:
    floor = Timed(Case("records_floor", "a copy of 10,000,000 people", None), [30.0, 20.0, 25.0], 3)
    within = Timed(Case("records_release", "records of 10,000,000 people", None, "records_floor", 4), [99.0], 300)
    beyond = Timed(Case("records_release", "records of 10,000,000 people", None, "records_floor", 4), [101.0], 300)
    rows = [line for line in markdown([floor, within, beyond], SparkSettings(cluster=True), "bench").splitlines()
            if line.startswith("| a copy") or line.startswith("| records")]
    release = "| records of 10,000,000 people | records_release"
    assert rows == ["| a copy of 10,000,000 people | records_floor | 25.0 (20.0-30.0) | 3 | – | – |",
                    f"{release} | 99.0 (99.0-99.0) | 300 | 100 (4 x records_floor) | yes |",
                    f"{release} | 101.0 (101.0-101.0) | 300 | 100 (4 x records_floor) | no |"]


def test_the_spark_benchmark_runs_the_releases_asked_for() -> None:
    assert release_models("records_release, release_thin") == ["records_release", "release_thin"]
    assert set(DEFAULT_RELEASES) == {"release_thin", "records_release", "table_release"}
    assert set(RELEASE_MODELS) == set(DEFAULT_RELEASES) | {"records_floor", "table3_release"} == set(INPUTS)
    for bad in ("", "records", "records_release,tables"):
        with pytest.raises(argparse.ArgumentTypeError, match="table_release"):
            release_models(bad)


def test_the_roll_up_probe_counts_classes_and_takes_the_smallest_pivot_below_each_node() -> None:
    # two quasi-identifiers: a, b, c, d -> {ab, cd} -> *; x, y -> *. Records (a,x) (b,x) (c,y) (d,y).
    letters = np.array([0, 1, 2, 3])
    top = np.zeros(4, dtype=np.int64)
    codes = [[letters, letters // 2, top], [np.array([0, 0, 1, 1]), top]]
    counts = class_counts(codes, max_height=3)
    assert counts[(0, 0)] == 4 and counts[(1, 0)] == 2 and counts[(0, 1)] == 4 and counts[(1, 1)] == 2
    assert counts[(2, 0)] == 2 and counts[(2, 1)] == 1
    direct, costs = pivot_costs(counts, height=2)  # the batch: (2, 0) and (1, 1)
    assert direct == 2 * 4
    # at height 1: (2, 0) lies above (1, 0) only; (1, 1) above (1, 0) (2 classes) and (0, 1) (4): (1, 0) for both
    assert costs == [PivotCost(1, pivots=1, build_rows=4, evaluate_rows=2 + 2)]
