"""The UCI Adult data set with ARX's hierarchies: a harness for `kanon.release_records`.

The data lives OUTSIDE the repository, in ``../shared/datasets/adult/`` relative to the repository
root (``KANON_ADULT_DIR`` overrides it); nothing here copies it into the repository. There:

* ``adult.csv``: 30,162 records, ``;``-separated with a header (``sex;age;race;marital-status;...``);
* ``adult_hierarchy_<column>.csv``: one row per leaf, ``value;level1;...;*``, no header.

This module

* finds the directory (`adult_dir`, None when absent) and loads it (`load`): the data as a pandas
  frame (columns renamed with '-' -> '_', ``age`` an integer, the rest text), the hierarchies as
  kanon hierarchy tables (``level_0 .. level_n``) and as `records_reference.Hierarchy` objects;
* writes dbt seeds from it (`write_seeds`): ``adult.csv`` and one ``adult_hierarchy_<column>.csv``
  per hierarchy in kanon's format, after checking that every data value is a leaf;
* runs anjana's k-anonymity on it with the same hierarchies (`anjana_run`): anjana generalizes one
  quasi-identifier at a time (the one with the most distinct values), greedily, until the classes
  below k fit the suppression limit; the node it ends on is scored with the reference's metrics.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from kanon_tools.dev.records_reference import Hierarchy, NodeResult, QuasiIdentifier, RecordsReference

ROOT = Path(__file__).resolve().parents[3]
"""The repository root (python_helpers/kanon_tools/dev/adult.py is three folders below it)."""
DEFAULT_DIR = ROOT.parent / "shared" / "datasets" / "adult"
ENV_VAR = "KANON_ADULT_DIR"
SOURCE_COLUMNS = (
    "sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class",
)
COLUMNS = tuple(c.replace("-", "_") for c in SOURCE_COLUMNS)
"""The columns as in the seeds and `load`'s frame: '-' replaced by '_' (marital_status, ...)."""
EXPECTED_LATTICE_SIZE = 12_960
"""The full-domain lattice with all nine columns as quasi-identifiers (ARX's figure)."""


def adult_dir() -> Path | None:
    """The Adult directory (``$KANON_ADULT_DIR``, else ``../shared/datasets/adult`` from the
    repository root), or None when it holds no adult.csv."""
    override = os.environ.get(ENV_VAR)
    path = Path(override) if override else DEFAULT_DIR
    return path if (path / "adult.csv").is_file() else None


def _require_dir(path: Path | None) -> Path:
    found = path or adult_dir()
    if found is None or not (found / "adult.csv").is_file():
        raise FileNotFoundError(f"the Adult data set is not at {path or DEFAULT_DIR} (set {ENV_VAR})")
    return found


@dataclass(frozen=True)
class AdultData:
    data: pd.DataFrame
    """The records, columns `COLUMNS`; age an integer, the rest text."""
    hierarchy_tables: dict[str, pd.DataFrame]
    """Per column: kanon's hierarchy table, text columns level_0 .. level_n, one row per leaf."""
    hierarchies: dict[str, Hierarchy]
    """Per column: the same hierarchy for the reference."""

    def quasi_identifiers(self, columns: Sequence[str] = COLUMNS) -> list[QuasiIdentifier]:
        return [QuasiIdentifier(c, self.hierarchies[c]) for c in columns]

    def lattice_size(self, columns: Sequence[str] = COLUMNS) -> int:
        return math.prod(self.hierarchies[c].depth + 1 for c in columns)


def _read_hierarchy(path: Path) -> pd.DataFrame:
    with path.open(newline="") as f:
        rows = [row for row in csv.reader(f, delimiter=";") if row]
    widths = {len(row) for row in rows}
    if len(widths) != 1:
        raise ValueError(f"{path.name}: rows of different widths {sorted(widths)}")
    width = widths.pop()
    return pd.DataFrame(rows, columns=[f"level_{i}" for i in range(width)], dtype=object)


def load(path: Path | None = None) -> AdultData:
    """Adult's records and hierarchies (see `AdultData`); every data value must be a leaf."""
    directory = _require_dir(path)
    raw = pd.read_csv(directory / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    if tuple(raw.columns) != SOURCE_COLUMNS:
        raise ValueError(f"adult.csv has columns {list(raw.columns)}, expected {list(SOURCE_COLUMNS)}")
    data = raw.rename(columns=dict(zip(SOURCE_COLUMNS, COLUMNS, strict=True)))
    tables: dict[str, pd.DataFrame] = {}
    hierarchies: dict[str, Hierarchy] = {}
    for source, column in zip(SOURCE_COLUMNS, COLUMNS, strict=True):
        table = _read_hierarchy(directory / f"adult_hierarchy_{source}.csv")
        hierarchy = Hierarchy.from_frame(table)
        leaves = set(table["level_0"])
        missing = sorted(set(data[column]) - leaves)
        if missing:
            raise ValueError(f"values of {column} missing from its hierarchy's leaves: {missing[:10]}")
        tables[column] = table
        hierarchies[column] = hierarchy
    data["age"] = data["age"].astype(np.int64)
    return AdultData(data=data, hierarchy_tables=tables, hierarchies=hierarchies)


def write_seeds(target_dir: Path, source: Path | None = None) -> list[Path]:
    """Write ``adult.csv`` (comma-separated, header, columns `COLUMNS`) and one
    ``adult_hierarchy_<column>.csv`` per column (header level_0 .. level_n) into `target_dir`."""
    adult = load(source)
    target_dir.mkdir(parents=True, exist_ok=True)
    written = [target_dir / "adult.csv"]
    adult.data.to_csv(written[0], index=False, lineterminator="\n")
    for column, table in adult.hierarchy_tables.items():
        path = target_dir / f"adult_hierarchy_{column}.csv"
        table.to_csv(path, index=False, lineterminator="\n")
        written.append(path)
    return written


# --- anjana -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AnjanaRun:
    seconds: float
    """Wall time of anjana's k-anonymity alone (data and hierarchies prepared beforehand)."""
    output: pd.DataFrame
    """anjana's released table (its suppressed records dropped, its extra 'index' column too)."""
    levels: dict[str, int]
    """The level anjana ended on per quasi-identifier."""
    node: NodeResult
    """The reference's evaluation of that node with the same k and budget (records): its
    losses are anjana's losses under the reference's metrics."""
    suppressed_records: int
    """Records anjana suppressed."""


def anjana_hierarchies(adult: AdultData, columns: Sequence[str]) -> dict[str, dict[int, np.ndarray[Any, Any]]]:
    """The hierarchies in anjana's format: per column ``{level: labels of every leaf at that level}``."""
    return {
        c: {level: adult.hierarchy_tables[c][f"level_{level}"].to_numpy(dtype=object)
            for level in range(adult.hierarchies[c].depth + 1)}
        for c in columns
    }


def anjana_run(
    k: int,
    budget_share: float,
    columns: Sequence[str] = COLUMNS,
    adult: AdultData | None = None,
) -> AnjanaRun:
    """anjana's k-anonymity on Adult with `columns` as quasi-identifiers and at most
    ``budget_share`` of the records suppressed, scored with the reference."""
    from anjana.anonymity import k_anonymity_inner

    adult = adult or load()
    data = adult.data.astype({"age": str})  # anjana matches values against the hierarchy's labels
    hierarchies = anjana_hierarchies(adult, columns)
    quiet = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(quiet):
        output, suppressed, gen_level = k_anonymity_inner(
            data, [], list(columns), k, budget_share * 100, hierarchies
        )
    seconds = time.perf_counter() - start
    if "index" in output.columns:
        output = output.drop(columns="index")
    levels = {c: int(gen_level[c]) for c in columns}
    reference = RecordsReference(
        adult.data, adult.quasi_identifiers(columns), k=k, budget_share=budget_share, budget_unit="records"
    )
    node = reference.evaluate([levels[c] for c in columns])
    return AnjanaRun(seconds=seconds, output=output.reset_index(drop=True), levels=levels, node=node,
                     suppressed_records=int(suppressed))
