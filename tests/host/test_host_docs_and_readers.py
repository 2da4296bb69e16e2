"""What a host project's documentation and its BI readers see of kanon.

`dbt docs generate` in a project that installs kanon through packages.yml shows kanon's macros,
generic tests, materialization and audit models with their descriptions, and the host's exposure
of a safe mart to a BI tool. On Postgres, the reader role can select the marts and nothing else:
not the events they were made from, not the audit trail. Both host projects are built from the
README's recipe ("Point a BI tool at a safe mart"), read from the README itself."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs installed; only safe_load is used
from support import ROOT
from support.host_projects import write_host
from support.projects import DbtProject
from support.warehouses import Warehouse, postgres_role, require_postgres, role_can_select

pytestmark = pytest.mark.dbt

MARTS = ("host_mart_a", "host_mart_b")


def readme_recipe() -> tuple[dict[str, Any], str]:
    """The README's two blocks: the project config (models' grants, the on-run-end hook) and the
    exposure, as written there. The test builds its host project from them."""
    section = (ROOT / "README.md").read_text().split("## Point a BI tool at a safe mart", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.S)
    assert len(blocks) == 2, "the README's recipe is two yaml blocks"
    return yaml.safe_load(blocks[0]), blocks[1]


def _host(tmp_path: Path, wh: Warehouse, reader: str | None) -> DbtProject:
    config, exposures = readme_recipe()
    models = extra = ""
    if reader:  # the recipe's role and project named as the test's
        grants = config["models"]["your_project"]["+grants"]
        models = "  host:\n    +grants:\n      select: [" + ", ".join(
            f"'{reader if role == 'bi_reader' else role}'" for role in grants["select"]) + "]\n"
        extra = "on-run-end:\n" + "".join(
            f"  - {json.dumps(hook.replace('bi_reader', reader))}\n" for hook in config["on-run-end"])
    write_host(tmp_path, models=models, extra=extra)
    (tmp_path / "models" / "exposures.yml").write_text(
        exposures.replace("ref('circulation_by_branch_age_title')", "ref('host_mart_a')"))
    project = DbtProject(tmp_path, wh, artifacts=True)
    project.run("deps")
    return project


@pytest.fixture(scope="module")
def documented(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[DbtProject, Path]:
    project = _host(tmp_path_factory.mktemp("docs_host"), make_warehouse("duckdb", "docs"), None)
    project.run("build")
    project.run("docs", "generate")
    return project, project.state_dir / "target"


def test_docs_generate_shows_kanon_with_its_descriptions(documented: tuple[DbtProject, Path]) -> None:
    _, target = documented
    manifest = json.loads((target / "manifest.json").read_text())
    kanon = {key: node for key, node in manifest["macros"].items() if node["package_name"] == "kanon"}
    public = {key: node for key, node in kanon.items()
              if not node["name"].startswith("_") and "__" not in node["name"]}
    for name in ("release_counts", "release_records", "release_table", "test_k_anonymous",
                 "test_hierarchy_covers", "materialization_k_anonymous_default", "audit_cell_fates"):
        assert f"macro.kanon.{name}" in public, name
    undocumented = sorted(node["name"] for node in public.values() if not node["description"].strip())
    assert undocumented == []
    assert public["macro.kanon.release_counts"]["arguments"], "release_counts' arguments are documented"
    for model in ("kanon_audit_releases", "kanon_audit_groups", "kanon_audit_hierarchies"):
        node = manifest["nodes"][f"model.kanon.{model}"]
        assert node["description"].strip() and node["columns"], model
        assert all(column["description"].strip() for column in node["columns"].values()), model
    exposure = manifest["exposures"]["exposure.host.circulation_dashboard"]
    assert exposure["depends_on"]["nodes"] == ["model.host.host_mart_a"]
    catalog = json.loads((target / "catalog.json").read_text())
    assert {"model.host.host_mart_a", "model.kanon.kanon_audit_releases"} <= set(catalog["nodes"])
    assert (target / "index.html").stat().st_size > 100_000  # the docs site, with its data inlined


@pytest.fixture(scope="module")
def read_by_bi(make_warehouse: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Warehouse, str]]:
    require_postgres()
    wh = make_warehouse("postgres", "bi")
    with postgres_role(wh, "bi_reader") as reader:
        _host(tmp_path_factory.mktemp("bi_host"), wh, reader).run("build")
        yield wh, reader


def test_the_bi_reader_selects_the_marts_and_nothing_else(read_by_bi: tuple[Warehouse, str]) -> None:
    wh, reader = read_by_bi
    schema, audit = wh.schema, f"{wh.schema}_kanon_audit"
    assert all(role_can_select(wh, reader, f'"{schema}"."{mart}"') for mart in MARTS)
    for relation in (f'"{schema}"."host_events"', f'"{schema}"."host_hierarchy_age"',
                     f'"{audit}"."kanon_audit_groups"', f'"{audit}"."kanon_audit_releases"'):
        assert not role_can_select(wh, reader, relation), relation
    granted = wh.query(
        "select table_schema, table_name, privilege_type from information_schema.role_table_grants "
        f"where grantee = '{reader}' order by table_name")
    assert granted == [(schema, mart, "SELECT") for mart in MARTS]
