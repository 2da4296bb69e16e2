"""Development tools: what builds the example data and measures kanon, not what a user runs on
their data. `python -m kanon_tools generate` and the bench commands run them (kanon_tools.cli).

generate, catalog: the deterministic library-circulation events of the example and the benchmarks.
bench, bench_records, bench_table, bench_file, bench_spark, bench_project/: `make bench`.
adult: the UCI Adult data set (outside the repository) for the record benchmark and its tests.
records_reference: the brute-force reference of `kanon.release_records` (every node of the
lattice) and the one `Hierarchy` of the tests' references; here rather than in tests/ because
bench-records scores anjana's node with it (adult.anjana_run).
"""
