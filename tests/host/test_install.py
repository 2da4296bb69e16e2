"""kanon-tools installed as a user installs it: `pip install ./python_helpers` into a fresh
virtualenv, then `kanon-records run` on a CSV in a folder outside any checkout (issue 32).

The wheel is built from a minimal copy of the checkout (python_helpers/ and the parts of kanon's
dbt package setup.py ships), so that the build leaves nothing in the repository. The virtualenv
sees none of the suite's packages: what it runs with is what pyproject.toml declares. uv installs
it when the suite's environment has uv (`make venv` does), from uv's cache, with the suite's pins
as constraints; pip otherwise.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from kanon_tools.records.files import read_table
from pycanon import anonymity
from support import ROOT

pytestmark = pytest.mark.dbt

EXAMPLE = ROOT / "examples" / "records_japan"
QIS = ["生年月日", "性別", "郵便番号", "都道府県"]


def _checkout_copy(dest: Path) -> Path:
    """What building kanon-tools reads of a checkout, copied to `dest`; its python_helpers/."""
    shutil.copytree(ROOT / "python_helpers", dest / "python_helpers",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "bench_project"))
    shutil.copytree(ROOT / "macros", dest / "macros")
    shutil.copytree(ROOT / "models" / "audit", dest / "models" / "audit")
    shutil.copy2(ROOT / "dbt_project.yml", dest / "dbt_project.yml")
    return dest / "python_helpers"


def _fresh_virtualenv(folder: Path, source: Path) -> Path:
    """A virtualenv in `folder` with kanon-tools installed from `source`; its bin/ folder."""
    uv = Path(sys.executable).parent / "uv"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    subprocess.run([sys.executable, "-m", "venv", *(["--without-pip"] if uv.exists() else []), str(folder)],
                   check=True, capture_output=True, env=env)
    python = folder / "bin" / "python"
    install = ([str(uv), "pip", "install", "--python", str(python)] if uv.exists()
               else [str(python), "-m", "pip", "install", "--quiet"])
    done = subprocess.run([*install, "-c", str(ROOT / "requirements.txt"), str(source)],
                          capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return folder / "bin"


def test_a_fresh_virtualenv_runs_kanon_records_on_a_csv_outside_any_checkout(tmp_path: Path) -> None:
    source = _checkout_copy(tmp_path / "checkout")
    bin_dir = _fresh_virtualenv(tmp_path / "venv", source)
    shutil.rmtree(tmp_path / "checkout")  # nothing of a checkout is left for the installed tool to find

    # the installed package is the virtualenv's own, and carries kanon's dbt package
    where = subprocess.run([str(bin_dir / "python"), "-c", "import kanon_tools, pathlib; "
                            "print(pathlib.Path(kanon_tools.__file__).parent)"],
                           capture_output=True, text=True, check=True, cwd=tmp_path)
    package = Path(where.stdout.strip())
    assert package.is_relative_to(tmp_path / "venv"), package
    assert (package / "dbt_package" / "dbt_project.yml").is_file()
    assert (package / "dbt_package" / "macros" / "records").is_dir()
    assert not (package / "dbt_package" / "models" / "example").exists()

    # the other command loads every sub-command's module: each import is declared
    tools = subprocess.run([str(bin_dir / "kanon-tools"), "--help"], capture_output=True, text=True, cwd=tmp_path)
    assert tools.returncode == 0 and "attack" in tools.stdout, tools.stderr[-3000:]

    work = tmp_path / "work"
    work.mkdir()
    shutil.copy2(EXAMPLE / "people.csv", work / "people.csv")
    shutil.copy2(EXAMPLE / "config.json", work / "config.json")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DBT_", "KANON_", "VIRTUAL_ENV", "PYTHONPATH"))}
    env["KANON_CACHE_DIR"] = str(tmp_path / "cache")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    run = subprocess.run([str(bin_dir / "kanon-records"), "run", "people.csv", "-c", "config.json", "-o", "safe.csv",
                          "--report-json", "receipt.json"], cwd=work, capture_output=True, text=True, env=env,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]

    receipt = json.loads((work / "receipt.json").read_text(encoding="utf-8"))
    released = read_table(work / "safe.csv")
    assert receipt["status"] == "RELEASED" and receipt["exit_code"] == 0
    assert len(released.rows) == receipt["release"]["records"]["out"] > 0
    frame = pd.DataFrame(list(released.rows), columns=list(released.columns))
    assert anonymity.k_anonymity(frame, QIS) >= 5
