"""What the test folders share, imported as `support` (pytest.ini puts tests/ on sys.path):

- here: the repository's places, and whether CI runs the suite;
- warehouses.py: Warehouse, one isolated place to build into, and Postgres's roles and reachability;
- projects.py: DbtProject and KeyedProject, dbt driven in a project, and the files a test writes;
- commands.py: `python -m kanon_tools` run in this process, as its own process would run it;
- cell_fates.py: a past release's cells, replayed from the audit trail by kanon.audit_cell_fates;
- file_seconds.py: the order the test files start in (file_seconds.json), and its recorder;
- host_projects.py: a throwaway host project installing kanon, and what its trail must be;
- records.py: a relation as a frame, a release's plan, `kanon-records` run here, a file's cells;
- attack_tables.py: tables whose LP audit is known, emitted as kanon.cli_table_cells emits them.

Fixtures live in conftest.py files (tests/conftest.py: those every folder uses), not here.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
INTEGRATION = ROOT / "integration_tests"
IN_CI = os.environ.get("CI", "").lower() == "true"
