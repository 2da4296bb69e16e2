"""Python helpers for the kanon dbt package.

The warehouse does the heavy work; these helpers only orchestrate, generate example data,
hold the reference oracle used by the tests, audit published marts and run benchmarks.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
