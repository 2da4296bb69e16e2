"""kanon_tools' machinery: dbt in this process, the data generator, the benchmarks, the test files' start order."""
