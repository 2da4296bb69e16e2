"""Python helpers for the kanon dbt package.

The warehouse does the heavy work; these helpers only orchestrate. The product: the record
release from a file (records/), the audits of what was published (audit, receipt, attack,
attack_report, demo), and what runs dbt and reaches the warehouses (dbt_runner, warehouse,
spark_sql, duckdb_pseudonym, pseudonym_env). The command line: cli/, one module per command.
Development tools (the example data's generator, the benchmarks, the records reference): dev/.
"""

__all__ = ["__version__"]
__version__ = "0.1.0"
