"""What the record tests share: a relation read as a frame, a release's plan read from the trail,
`kanon-records` run in this process as its own process would run it, and the cells of an input
file that no receipt may hold."""

from __future__ import annotations

import json
import os
import sys
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
from kanon_tools.cli import records as cli
from kanon_tools.records.files import read_table

from support.commands import main_in_process
from support.warehouses import Warehouse

SCRIPT = Path(sys.executable).parent / "kanon-records"
AUDIT = "kanon_audit"  # the trail's schema suffix in the integration project


def read_frame(wh: Warehouse, relation: str) -> pd.DataFrame:
    conn = wh.connect()
    try:
        cur = conn.cursor()
        cur.execute(f"select * from {relation}")
        names = [d[0] for d in cur.description]
        return pd.DataFrame([tuple(row) for row in cur.fetchall()], columns=names)
    finally:
        conn.close()


def plan_of(wh: Warehouse, model: str, status: str = "RELEASED") -> dict[str, Any]:
    rows = wh.query(f"select release_plan from {wh.relation('kanon_audit_releases', AUDIT)} "
                    f"where report = '{model}' and status = '{status}' order by released_at desc limit 1")
    assert rows, f"no {status} release of {model}"
    return dict(json.loads(rows[0][0]))


@dataclass
class Command:
    code: int
    stdout: str
    stderr: str


def records(*args: str | Path, cwd: Path) -> Command:
    """`kanon-records <args>` in `cwd`, without a pseudonym key in its environment: its main() here,
    dbt included (support.commands.main_in_process), which spares a Python start and dbt's
    imports a call."""
    argv = [str(a) for a in args]
    env = {k: v for k, v in os.environ.items() if k != "KANON_PSEUDONYM_KEY"}
    done = main_in_process(cli.main, [str(SCRIPT)], argv, env, cwd)
    return Command(done.returncode, done.stdout, done.stderr)


def file_cells(path: Path) -> set[str]:
    """Every cell of the input, and its NFKC form, that is long enough to be looked for."""
    table = read_table(path)
    cells = {v for row in table.rows for v in row if v is not None}
    cells |= {unicodedata.normalize("NFKC", v) for v in cells}
    # a one-character cell (男, 女) is looked for too: the receipts' own words avoid those characters
    return {c for c in cells if not (c.isascii() and c.isdigit() and len(c) < 5)}
