"""The Spark session kanon_tools.spark_sql builds (the tests' reads, and the JVM dbt-spark's session
method then takes over) is the one profiles.yml's spark output describes: a setting in one and not
the other would make the tests run on a Spark that users of the profile do not get."""

from __future__ import annotations

import re
from pathlib import Path

import yaml  # type: ignore[import-untyped]  # no stubs installed; only safe_load is used
from kanon_tools.spark_sql import JVM_OPTIONS, session_settings
from support import ROOT

ENV_VAR = re.compile(r"\{\{\s*env_var\('(\w+)',\s*'([^']*)'\)\s*\}\}")


def _profile_settings(env: dict[str, str]) -> dict[str, str]:
    """profiles.yml's spark server_side_parameters, its env_var() calls rendered from `env`."""
    def render(text: str) -> str:
        return ENV_VAR.sub(lambda m: env.get(m.group(1), m.group(2)), text)

    output = yaml.safe_load((ROOT / "profiles.yml").read_text())["kanon"]["outputs"]["spark"]
    return {name: render(str(value)) for name, value in output["server_side_parameters"].items()}


def test_the_session_is_the_profile_s(tmp_path: Path) -> None:
    env = {"KANON_SPARK_DIR": str(tmp_path), "KANON_SPARK_CORES": "2", "KANON_SPARK_MEMORY": "3g"}
    assert session_settings(tmp_path, cores=2, memory="3g") == _profile_settings(env)
    defaults = _profile_settings({})
    assert session_settings("spark") == defaults
    assert defaults["spark.driver.extraJavaOptions"].endswith(JVM_OPTIONS)
    assert "-XX:TieredStopAtLevel=1" in JVM_OPTIONS
