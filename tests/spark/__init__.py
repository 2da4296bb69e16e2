"""kanon on Spark: dbt-spark's session method, the standalone cluster, the stage splitter."""
