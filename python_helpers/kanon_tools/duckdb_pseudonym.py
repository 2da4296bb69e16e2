"""dbt-duckdb plugin: HMAC's padded key blocks served to DuckDB at run time, read from the environment.

Why a plugin: DuckDB has no SQL function that reads the environment, and any route through SQL
text would put the key (or HMAC's padded key blocks) into a statement, which dbt writes to
target/ and to logs/dbt.log. dbt-duckdb calls `configure_connection` on every connection it opens;
this plugin registers two scalar functions there, which read the key here, in Python, when the
statement runs:

    kanon_hmac_block(key_env VARCHAR, pad INTEGER) -> BLOB
        one of HMAC-SHA-256's two 64-byte blocks: the key (hashed first when longer than 64
        bytes), zero-padded, each byte xor pad (54 = ipad, 92 = opad); raises (naming the
        variable, never the key) when the key is missing or malformed
    kanon_pseudonym_key_status(key_env VARCHAR) -> VARCHAR
        'ok', or what is wrong with the key ('missing', 'not hex', 'odd length', 'too short',
        'not served'); what kanon._records_pseudonym_check turns into a compile error

DuckDB then computes HMAC = sha256(opad block || sha256(ipad block || message)) with its own
sha256, each block an uncorrelated scalar subquery evaluated once per statement: 0.6 s for 1.36M
values on 2 cores, against about 5 s for a Python HMAC called once per row (ADR 16). The blocks
live in DuckDB's memory for the statement only; the SQL names the variable, never the key.

Any SQL of the session can call kanon_hmac_block, so it serves only the variables in its
config's `key_envs` (default KANON_PSEUDONYM_KEY and KANON_NOISE_KEY, the noisy releases' key):
another secret of dbt's environment (a database password) is never served. Whoever can run SQL in
dbt's process can read a served key's blocks, as they can read the variable itself with dbt's
env_var(): the plugin adds no reader, it keeps the key out of files.

profiles.yml, in the DuckDB output:

    plugins:
      - module: kanon_tools.duckdb_pseudonym
        config: {key_envs: [KANON_PSEUDONYM_KEY, KANON_NOISE_KEY]}   # optional: this is the default
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin
from duckdb import DuckDBPyConnection

from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, NOISE_KEY_ENV, check_key_env, key_status

BLOCK_FUNCTION = "kanon_hmac_block"
STATUS_FUNCTION = "kanon_pseudonym_key_status"
NOT_SERVED = "not served"


class PseudonymKeyError(ValueError):
    """A key that cannot be used; the message names the variable and the verdict, never the key."""


# HMAC's inner and outer pads (RFC 2104), the only pads the block function serves
HMAC_PADS = (0x36, 0x5C)
BLOCK_BYTES = 64


def hmac_block(key: bytes, pad: int) -> bytes:
    """HMAC-SHA-256's padded block of `key` for `pad`: what sha256 is keyed with, per RFC 2104."""
    if len(key) > BLOCK_BYTES:
        key = hashlib.sha256(key).digest()
    return bytes(byte ^ pad for byte in key.ljust(BLOCK_BYTES, b"\0"))


class Plugin(BasePlugin):
    """Registers kanon_hmac_block and kanon_pseudonym_key_status on each DuckDB connection."""

    key_envs: frozenset[str]

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        # plugin_config is the profile's DuckDB `settings` merged with this plugin's `config`
        names = plugin_config.get("key_envs", [DEFAULT_KEY_ENV, NOISE_KEY_ENV])
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ValueError("kanon_tools.duckdb_pseudonym: config key_envs must be a list of environment "
                             f"variable names, got {names!r}")
        self.key_envs = frozenset(check_key_env(name) for name in names)

    def configure_connection(self, conn: DuckDBPyConnection) -> None:
        # Default null handling: NULL in, NULL out, without calling Python. Registered on the
        # connection dbt-duckdb opens; its per-thread cursors share the connection's functions.
        conn.create_function(BLOCK_FUNCTION, self.block, ["VARCHAR", "INTEGER"], "BLOB")
        conn.create_function(STATUS_FUNCTION, self.key_status, ["VARCHAR"], "VARCHAR")

    def key_status(self, key_env: str) -> str:
        if key_env not in self.key_envs:
            return NOT_SERVED
        return key_status(os.environ.get(key_env))

    def block(self, key_env: str, pad: int) -> bytes:
        # Called once per statement and pad (a scalar subquery). The key is read from the
        # environment each time: a key changed in a long-lived process must not be missed.
        if pad not in HMAC_PADS:
            raise PseudonymKeyError(f"{BLOCK_FUNCTION}: pad must be 54 (ipad) or 92 (opad), got {pad}")
        status = self.key_status(key_env)
        if status != "ok":
            raise PseudonymKeyError(
                f"{BLOCK_FUNCTION}: no usable key in the environment variable {key_env} ({status}); "
                "see docs/pseudonyms.md")
        return hmac_block(bytes.fromhex(os.environ[key_env]), pad)
