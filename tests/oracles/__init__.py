"""The tests' oracles: plain-Python references the SQL releases are checked against, written from
the documented semantics, not from the SQL.

counts: `kanon.release_counts` (tests/counts/test_oracle.py and test_release_property.py,
tests/audit/test_audit.py).
The records reference (`kanon.release_records`, a brute force of the whole lattice) stays in the
package, kanon_tools.dev.records_reference: `make bench` scores anjana's node with it
(kanon_tools.dev.adult), and a benchmark runs from the installed package, not from tests/.
"""
