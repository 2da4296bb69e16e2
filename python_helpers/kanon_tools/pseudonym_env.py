"""The pseudonym key in the environment: how it is judged, and how it reaches Postgres.

kanon's record releases may replace an identifier by HMAC-SHA-256(key, value) (the macro
kanon._records_pseudonym). The key is hex text of at least 32 bytes in an environment variable,
KANON_PSEUDONYM_KEY by default, and never appears in SQL (see docs/pseudonyms.md):

- DuckDB reads it through the dbt-duckdb plugin kanon_tools.duckdb_pseudonym (in dbt's process);
- Postgres cannot read the client's environment, so the key travels as the custom setting
  kanon.pseudonym_key, given at connection start by libpq's PGOPTIONS. `pseudonym_env` builds
  that environment for a dbt process:

    env = pseudonym_env(os.environ)              # PGOPTIONS now carries KANON_PSEUDONYM_KEY
    subprocess.run(["dbt", "build"], env=env)

This module imports nothing from dbt, so it is cheap to use from the CLI and the tests.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping

DEFAULT_KEY_ENV = "KANON_PSEUDONYM_KEY"
# the key of noisy releases' record keys (kanon._noise_record_key): a secret of its own
NOISE_KEY_ENV = "KANON_NOISE_KEY"
MIN_KEY_BYTES = 32
# The verdicts, in the order they are checked; the macros' Postgres SQL
# (kanon._records_pseudonym_key_status) gives the same ones in the same order.
KEY_VERDICTS = ("missing", "not hex", "odd length", "too short", "ok")

_HEX = re.compile(r"[0-9A-Fa-f]+")
_KEY_ENV = re.compile(r"[A-Z][A-Z0-9_]*")


def key_status(raw: str | None) -> str:
    """'ok' for usable key text, else what is wrong with it; never anything derived from it."""
    if not raw:
        return "missing"
    if not _HEX.fullmatch(raw):  # fullmatch: bytes.fromhex would also take spaces
        return "not hex"
    if len(raw) % 2:
        return "odd length"
    if len(raw) < 2 * MIN_KEY_BYTES:
        return "too short"
    return "ok"


def check_key_env(key_env: str) -> str:
    """The variable's name, if it is one the macros accept (upper case, digits, underscores)."""
    if not _KEY_ENV.fullmatch(key_env):
        raise ValueError(f"key_env must name an environment variable in upper case, got {key_env!r}")
    return key_env


def setting_name(key_env: str = DEFAULT_KEY_ENV) -> str:
    """The Postgres setting that carries the key: KANON_PSEUDONYM_KEY -> kanon.pseudonym_key.

    A custom setting needs a dotted name whose parts start with a letter; the KANON_ prefix
    becomes the dot. The macro kanon._records_pseudonym_setting is the same rule in Jinja.
    """
    name = check_key_env(key_env).lower()
    if name.startswith("kanon_") and name[6:7].isalpha():
        name = name[6:]
    return f"kanon.{name}"


def pseudonym(key_hex: str, text: str) -> str:
    """The pseudonym the warehouses compute: lower-case hex HMAC-SHA-256 of the text's UTF-8 bytes."""
    return hmac.new(bytes.fromhex(key_hex), text.encode("utf-8"), hashlib.sha256).hexdigest()


def pseudonym_env(env: Mapping[str, str], key_env: str = DEFAULT_KEY_ENV) -> dict[str, str]:
    """A copy of `env` whose PGOPTIONS also sets the key's Postgres setting from env[key_env].

    The key is passed on as it is, even when malformed: the macros' check then says what is wrong
    with it, in one place for both warehouses. Without the variable, `env` is returned unchanged
    (the check says the key is missing). The new option goes last, so it wins over an earlier
    one for the same setting; spaces and backslashes are escaped as libpq reads PGOPTIONS.
    """
    out = dict(env)
    key = out.get(check_key_env(key_env))
    if not key:
        return out
    escaped = key.replace("\\", "\\\\").replace(" ", "\\ ")
    option = f"-c {setting_name(key_env)}={escaped}"
    out["PGOPTIONS"] = f"{out['PGOPTIONS']} {option}" if out.get("PGOPTIONS") else option
    return out
