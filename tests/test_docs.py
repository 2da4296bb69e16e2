"""Every macro, generic test and materialization the package defines is documented in a
macros/**/*.yml, and every documented one exists: docs cannot silently go stale."""

from __future__ import annotations

import re

import yaml  # type: ignore[import-untyped]  # no stubs installed; only safe_load is used
from conftest import ROOT

# dbt names a materialization's macro materialization_<name>_<adapter> and a generic test's test_<name>
DEFINED = re.compile(r"{%-?\s*(macro|materialization|test)\s+(\w+)(?:\s*,\s*(\w+))?")
DISPATCHED = ("default__", "duckdb__", "postgres__", "spark__")


def _defined() -> set[str]:
    names = set()
    for path in (ROOT / "macros").rglob("*.sql"):
        for kind, name, adapter in DEFINED.findall(path.read_text()):
            if kind == "materialization":
                names.add(f"materialization_{name}_{adapter or 'default'}")
            elif kind == "test":
                names.add(f"test_{name}")
            elif not name.startswith(DISPATCHED):
                names.add(name)
    return names


def _documented() -> set[str]:
    names = set()
    for path in (ROOT / "macros").rglob("*.yml"):
        for entry in (yaml.safe_load(path.read_text()) or {}).get("macros") or []:
            assert entry.get("description", "").strip(), f"{path.name}: {entry['name']} has no description"
            names.add(entry["name"])
    return names


def test_every_macro_is_documented_and_every_doc_has_its_macro() -> None:
    defined, documented = _defined(), _documented()
    assert sorted(defined - documented) == [], "macros without docs"
    assert sorted(documented - defined) == [], "docs of macros that no longer exist"
