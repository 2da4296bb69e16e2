# kanon: one entry point. `make demo` and `make test` start from nothing but Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kanon-installed
export DBT_PROFILES_DIR := $(CURDIR)
export DBT_SEND_ANONYMOUS_USAGE_STATS := false
# The example's noisy twin (models/example) reads its key from KANON_NOISE_KEY. This default is
# public (kanon_tools.noise.DEMO_KEY), for the demo, lint and tests only: a real release needs a
# secret key of its own (docs/reference/noise.md).
export KANON_NOISE_KEY ?= 6b616e6f6e2d64656d6f2d6e6f6973652d6b65792d6e6f742d73656372657421

.PHONY: demo check test lint lint-source lint-python lint-sql lint-macros lint-compiled compiled-example \
	compiled-integration compiled-bench bench venv lock clean spark-cluster spark-cluster-stop test-spark test-spark-cluster \
	test-seconds

venv: $(STAMP)

# uv installs the pinned set in about 60 % of pip's time (29 s against 47 s with warm caches on 2
# cores): it compiles no bytecode ahead (Python does, on first import) and links wheels from its
# cache. pip installs uv, from the same registry. uv reads no pip.conf, so where uv cannot be had
# or cannot reach the index pip's settings name, pip installs everything.
UV_VERSION := 0.13.9
$(STAMP): requirements.txt python_helpers/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	if $(BIN)/python -m pip install --quiet --disable-pip-version-check uv==$(UV_VERSION) && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python -r requirements.txt && \
	  $(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation -e python_helpers; then :; \
	else \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --quiet -r requirements.txt && \
	  $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e python_helpers; \
	fi
	touch $@

## demo: load the example seeds into DuckDB, build and test the example marts, show what was released
demo: $(STAMP)
	$(BIN)/dbt build --target duckdb --vars '{kanon_example_noise: true}'
	$(BIN)/python -m kanon_tools demo --target duckdb --noisy-twin

## check: the fast tier, between two changes (under two minutes): ruff, mypy, sqlfluff on the
## package's SQL, and every test that needs no warehouse (pytest -m "not dbt")
TEST_WORKERS ?= 2
LINT_JOBS ?= 2
check:
	$(MAKE) --no-print-directory -j$(LINT_JOBS) --output-sync=target lint-source
	$(BIN)/python -m pytest -m "not dbt" -n $(TEST_WORKERS) -q

## test: the README's test command, the first CI runs: lint (check's linters and the SQL the
## macros generate), then every test on DuckDB and Postgres, with the 25 slowest listed. The Spark
## tests repeat DuckDB's releases on a JVM at minutes a module, so they have targets of their own
## (test-spark, test-spark-cluster) that CI runs after it (issue 47: keep make test within 15 min)
# pytest-xdist workers, a test file each at a time (a file's module fixtures build its warehouses
# once); dbt runs inside them (kanon_tools.dbt_runner, ADR 14). Files start longest first, by the
# seconds a whole run measured (tests/support/file_seconds.json), not in xdist's order.
SUITE = $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=25
test: lint
	$(SUITE) -m "not spark"

## test-seconds: every test, as `make test` runs them, each file's seconds written to
## tests/support/file_seconds.json: the order later runs start the files in (commit it)
test-seconds:
	KANON_RECORD_FILE_SECONDS=1 $(SUITE) -m "not spark"

## spark-cluster: a Spark standalone cluster on this machine (a master, two workers, a Spark Connect
## server; kanon_tools.dev.spark_cluster), for profiles.yml's spark_cluster output: it prints the
## SPARK_REMOTE to export. The KANON_* keys in this environment reach its JVMs (docs/pseudonyms.md).
SPARK_CLUSTER_DIR ?= target/spark_cluster
spark-cluster: $(STAMP)
	$(BIN)/python -m kanon_tools spark-cluster start --dir $(SPARK_CLUSTER_DIR)

## spark-cluster-stop: stop what spark-cluster started
spark-cluster-stop: $(STAMP)
	$(BIN)/python -m kanon_tools spark-cluster stop --dir $(SPARK_CLUSTER_DIR)

## test-spark: the Spark tests (tests/spark/test_spark.py) on dbt-spark's session method, one local
## Spark process (local[2]) as most users run it; CI runs it after `make test`
test-spark: $(STAMP)
	$(BIN)/python -m pytest tests/spark/test_spark.py --durations=10

## test-spark-cluster: the cluster itself (tests/spark/test_spark_cluster.py) and the Spark tests
## (tests/spark/test_spark.py) on a cluster of their own, started and stopped by each module (CI runs it
## after `make test`)
test-spark-cluster: $(STAMP)
	KANON_SPARK_CLUSTER=1 $(BIN)/python -m pytest tests/spark/test_spark_cluster.py tests/spark/test_spark.py --durations=10

## lint: lint-source and lint-compiled, their steps two at a time (most steps use one core)
lint:
	$(MAKE) --no-print-directory -j$(LINT_JOBS) --output-sync=target lint-source lint-compiled

# Each step that runs dbt has its own scratch DuckDB file and target path under target/lint: a
# DuckDB file takes one writer at a time, and the steps run side by side.
#
# sqlfluff's dbt templater compiles every model, and kanon's release macros read the columns of
# the seeds they use when they compile: so the seeds are loaded into the scratch file first.
# The integration tests pseudonymise an identifier (models/records/records_pseudonym.sql): they
# are built here with a fixed key that guards nothing (tests use their own).
LINT := $(CURDIR)/target/lint
LINT_KEY := 6c696e742d6f6e6c792d6b65792d6e6f742d612d7365637265742d6b616e6f6e
LINT_ENV = KANON_DUCKDB_PATH=$(LINT)/$(1).duckdb KANON_PSEUDONYM_KEY=$(LINT_KEY) DBT_LOG_PATH=$(LINT)/logs/$(1)
BENCH_LINT_ENV := KANON_DUCKDB_PATH=$(LINT)/bench.duckdb KANON_SCHEMA=main DBT_LOG_PATH=$(LINT)/logs/bench

## lint-source: ruff, mypy, sqlfluff on the package's own models, macros and analyses, and the
## length of every macro body and width of every macro line (scripts/lint_macros.py: at most
## 120 lines, 120 characters)
lint-source: lint-python lint-sql lint-macros

lint-macros: $(STAMP)
	$(BIN)/ruff check scripts
	$(BIN)/mypy --config-file mypy.ini scripts
	$(BIN)/python scripts/lint_macros.py

lint-python: $(STAMP)
	$(BIN)/ruff check python_helpers tests
	$(BIN)/mypy

# the example's seeds in the scratch DuckDB file the dbt templater compiles against, loaded once
SEEDED := $(LINT)/source.seeded
$(SEEDED): $(STAMP) $(wildcard seeds/*/*)
	mkdir -p $(LINT)
	$(call LINT_ENV,source) $(BIN)/dbt seed --quiet --target-path $(LINT)/source
	touch $@

lint-sql: $(SEEDED)
	$(call LINT_ENV,source) $(BIN)/sqlfluff lint --processes 2 models macros analyses

## lint-compiled: sqlfluff on the SQL the macros generate, as compiled into the example, the
## integration-test and the benchmark's models (each project built on a scratch DuckDB file)
# Only each project's own nodes are linted: the integration and benchmark projects compile
# kanon's models too, and the example's compile holds them.
lint-compiled: compiled-example compiled-integration compiled-bench
	$(BIN)/sqlfluff lint --processes 2 --config .sqlfluff-compiled $(LINT)/example/compiled \
	  $(LINT)/integration/compiled/kanon_integration_tests $(LINT)/bench/compiled/kanon_bench

compiled-example: $(STAMP)
	mkdir -p $(LINT)
	$(call LINT_ENV,example) $(BIN)/dbt seed --quiet --target-path $(LINT)/example \
	  && $(call LINT_ENV,example) $(BIN)/dbt compile --quiet --target-path $(LINT)/example

compiled-integration: $(STAMP)
	mkdir -p $(LINT)
	cd integration_tests && $(call LINT_ENV,integration) KANON_SCHEMA=lint_it ../$(BIN)/dbt deps --quiet \
	  && $(call LINT_ENV,integration) KANON_SCHEMA=lint_it ../$(BIN)/dbt build --quiet --target-path $(LINT)/integration

# The benchmark's models (python_helpers/kanon_tools/dev/bench_project) are compiled like the
# integration tests, since kanon's release macros read the columns of their events when they
# compile. So they are built, offline, against a tiny generated dataset (both generator profiles)
# in a scratch DuckDB file, from a copy of the project whose packages.yml names this checkout (a
# committed packages.yml cannot hold its absolute path; bench.write_project writes the copy `make
# bench` uses too). The copy's models are then linted as written, with the dbt templater and every
# rule of .sqlfluff (its .sqlfluffignore says which are linted only compiled), and their compiled
# SQL by lint-compiled.
compiled-bench: $(STAMP)
	rm -rf $(LINT)/bench* && mkdir -p $(LINT)
	$(BIN)/python -m kanon_tools generate --quiet --events 2000 --duckdb $(LINT)/bench.duckdb --table events
	$(BIN)/python -m kanon_tools generate --quiet --events 2000 --profile thinner \
	  --duckdb $(LINT)/bench.duckdb --table events_thinner
	$(BIN)/python -m kanon_tools bench-records --generate-only 2000 --duckdb $(LINT)/bench.duckdb
	$(BIN)/python -m kanon_tools bench-table --generate-only --rows 40 --columns 10 --duckdb $(LINT)/bench.duckdb
	$(BIN)/python -m kanon_tools bench-table --generate-only --shape 3d --rows 40 --columns 10 \
	  --duckdb $(LINT)/bench.duckdb
	$(BIN)/python -c 'import sys, pathlib, kanon_tools.dev.bench as b; b.write_project(pathlib.Path(sys.argv[1]))' \
	  $(LINT)/bench_project
	cd $(LINT)/bench_project && $(BENCH_LINT_ENV) $(CURDIR)/$(BIN)/dbt deps --quiet \
	  && $(BENCH_LINT_ENV) $(CURDIR)/$(BIN)/dbt build --quiet --target-path $(LINT)/bench \
	  && $(BENCH_LINT_ENV) $(CURDIR)/$(BIN)/sqlfluff lint --processes 2 models

## bench: release cost against the bare aggregate, what record and table releases cost, the file command, and the three kinds on Spark (BENCHMARKS.md)
bench: $(STAMP)
	mkdir -p target
	$(BIN)/python -m kanon_tools bench $(BENCH_ARGS)
	$(BIN)/python -m kanon_tools bench-records $(BENCH_RECORDS_ARGS) --out target/bench_records.md
	cat target/bench_records.md >> BENCHMARKS.md
	$(BIN)/python -m kanon_tools bench-table $(BENCH_TABLE_ARGS) --out target/bench_table.md
	cat target/bench_table.md >> BENCHMARKS.md
	$(BIN)/python -m kanon_tools bench-table --shape 3d --workdir target/bench_table3 $(BENCH_TABLE_ARGS) \
	  --out target/bench_table3.md
	cat target/bench_table3.md >> BENCHMARKS.md
	$(BIN)/python -m kanon_tools bench-file $(BENCH_FILE_ARGS) --out target/bench_file.md
	cat target/bench_file.md >> BENCHMARKS.md
	$(BIN)/python -m kanon_tools bench-spark $(BENCH_SPARK_ARGS) --out target/bench_spark.md
	cat target/bench_spark.md >> BENCHMARKS.md

## lock: re-resolve requirements.in into the pinned requirements.txt
lock:
	rm -rf /tmp/kanon-lock && $(PYTHON) -m venv /tmp/kanon-lock
	/tmp/kanon-lock/bin/pip install --quiet -r requirements.in
	/tmp/kanon-lock/bin/pip freeze --all | grep -v '^pip==' > requirements.txt

clean:
	rm -rf $(VENV) target logs dbt_packages integration_tests/target integration_tests/dbt_packages *.duckdb
