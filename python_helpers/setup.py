"""Builds kanon-tools with kanon's own dbt package inside it.

`kanon-records` runs kanon's macros in a dbt project of its own (kanon_tools/records/project/),
which installs kanon as a local package. In a checkout that package is the checkout itself; a
wheel carries a copy, in kanon_tools/dbt_package/: the parts a release reads (dbt_project.yml,
the macros, the audit trail's models; not the example, the tests or the docs). So `pip install
./python_helpers` gives a working `kanon-records` in any virtualenv, outside the checkout
(tests/host/test_install.py). An editable install (`make venv`) copies nothing: the engine finds the
checkout (kanon_tools.records.engine.kanon_package).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CHECKOUT = Path(__file__).resolve().parent.parent
DBT_PACKAGE = ("dbt_project.yml", "macros", "models/audit")


class BuildWithDbtPackage(build_py):
    """build_py, then kanon's dbt package copied next to the built kanon_tools."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not (CHECKOUT / "dbt_project.yml").is_file():
            raise SystemExit(f"kanon-tools: build it from a kanon checkout ({CHECKOUT} has no dbt_project.yml)")
        target = Path(self.build_lib) / "kanon_tools" / "dbt_package"
        shutil.rmtree(target, ignore_errors=True)
        for part in DBT_PACKAGE:
            source = CHECKOUT / part
            if source.is_dir():
                shutil.copytree(source, target / part, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                target.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target / part)


setup(cmdclass={"build_py": BuildWithDbtPackage})
