"""dbt-duckdb plugin: keyed-hash pseudonyms computed inside dbt's process, the key read from the environment.

Why a plugin: DuckDB has no SQL function that reads the environment, and any route through SQL
would put the key (or HMAC's padded key blocks) into statement text, which dbt writes to target/
and to logs/dbt.log. dbt-duckdb calls `configure_connection` on every connection it opens; this
plugin registers two scalar functions there, which read the key here, in Python, when they run:

    kanon_pseudonym(value VARCHAR, key_env VARCHAR) -> VARCHAR
        lower-case hex HMAC-SHA-256(bytes.fromhex(os.environ[key_env]), value as UTF-8); NULL for
        NULL; raises (naming the variable, never the key) when the key is missing or malformed
    kanon_pseudonym_key_status(key_env VARCHAR) -> VARCHAR
        'ok', or what is wrong with the key ('missing', 'not hex', 'odd length', 'too short',
        'not served'); what kanon._records_pseudonym_check turns into a compile error

The SQL names the variable, never the key. The plugin serves only the variables in its config's
`key_envs` (default KANON_PSEUDONYM_KEY and KANON_NOISE_KEY, the noisy releases' key): otherwise
any SQL in the session could key a hash with another secret of dbt's environment (a database
password) and test guesses against it offline.

profiles.yml, in the DuckDB output:

    plugins:
      - module: kanon_tools.duckdb_pseudonym
        config: {key_envs: [KANON_PSEUDONYM_KEY, KANON_NOISE_KEY]}   # optional: this is the default
"""

from __future__ import annotations

import hashlib
import hmac
import os
from typing import Any

from dbt.adapters.duckdb.plugins import BasePlugin
from duckdb import DuckDBPyConnection

from kanon_tools.pseudonym_env import DEFAULT_KEY_ENV, NOISE_KEY_ENV, check_key_env, key_status

PSEUDONYM_FUNCTION = "kanon_pseudonym"
STATUS_FUNCTION = "kanon_pseudonym_key_status"
NOT_SERVED = "not served"


class PseudonymKeyError(ValueError):
    """A key that cannot be used; the message names the variable and the verdict, never the key."""


class Plugin(BasePlugin):
    """Registers kanon_pseudonym and kanon_pseudonym_key_status on each DuckDB connection."""

    key_envs: frozenset[str]
    # per variable: the key text last read and an HMAC primed with it (copied per value, so the
    # key's padded blocks are hashed once, not once per row)
    _primed: dict[str, tuple[str, hmac.HMAC]]

    def initialize(self, plugin_config: dict[str, Any]) -> None:
        # plugin_config is the profile's DuckDB `settings` merged with this plugin's `config`
        names = plugin_config.get("key_envs", [DEFAULT_KEY_ENV, NOISE_KEY_ENV])
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
            raise ValueError("kanon_tools.duckdb_pseudonym: config key_envs must be a list of environment "
                             f"variable names, got {names!r}")
        self.key_envs = frozenset(check_key_env(name) for name in names)
        self._primed = {}

    def configure_connection(self, conn: DuckDBPyConnection) -> None:
        # Default null handling: NULL in, NULL out, without calling Python. Registered on the
        # connection dbt-duckdb opens; its per-thread cursors share the connection's functions.
        conn.create_function(PSEUDONYM_FUNCTION, self.pseudonym, ["VARCHAR", "VARCHAR"], "VARCHAR")
        conn.create_function(STATUS_FUNCTION, self.key_status, ["VARCHAR"], "VARCHAR")

    def key_status(self, key_env: str) -> str:
        if key_env not in self.key_envs:
            return NOT_SERVED
        return key_status(os.environ.get(key_env))

    def pseudonym(self, value: str, key_env: str) -> str:
        # Called once per row. The key is read from the environment each time (a key changed in a
        # long-lived process must not be missed: stale pseudonyms would be silent), and judged and
        # primed again only when it changed; only served variables are ever primed.
        primed = self._primed.get(key_env)
        if primed is None or primed[0] != os.environ.get(key_env):
            primed = self._prime(key_env)
        mac = primed[1].copy()
        mac.update(value.encode("utf-8"))
        return mac.hexdigest()

    def _prime(self, key_env: str) -> tuple[str, hmac.HMAC]:
        status = self.key_status(key_env)
        if status != "ok":
            self._primed.pop(key_env, None)
            raise PseudonymKeyError(
                f"kanon_pseudonym: no usable pseudonym key in the environment variable {key_env} ({status}); "
                "see docs/pseudonyms.md")
        raw = os.environ[key_env]
        primed = (raw, hmac.new(bytes.fromhex(raw), digestmod=hashlib.sha256))
        self._primed[key_env] = primed
        return primed
