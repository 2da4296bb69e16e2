# kanon: one entry point. `make demo` and `make test` start from nothing but Python 3.11.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.kanon-installed
export DBT_PROFILES_DIR := $(CURDIR)
export DBT_SEND_ANONYMOUS_USAGE_STATS := false

.PHONY: demo test lint bench venv lock clean

venv: $(STAMP)

$(STAMP): requirements.txt python_helpers/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e python_helpers
	touch $@

## demo: load the example seeds into DuckDB, build and test the example marts, show what was released
demo: $(STAMP)
	$(BIN)/dbt build --target duckdb
	$(BIN)/python -m kanon_tools demo --target duckdb

## test: the whole suite (sqlfluff lint, then pytest driving dbt on DuckDB and Postgres)
test: lint
	$(BIN)/python -m pytest

# sqlfluff's dbt templater compiles every model, and kanon's release macros read the columns of
# the seeds they use when they compile: so the seeds are loaded into a scratch DuckDB file first.
LINT_ENV := KANON_DUCKDB_PATH=$(CURDIR)/target/lint.duckdb
lint: $(STAMP)
	mkdir -p target
	$(LINT_ENV) $(BIN)/dbt seed --quiet
	$(LINT_ENV) $(BIN)/sqlfluff lint models macros analyses
	@# the SQL the macros generate, as compiled into the example and integration-test models
	$(LINT_ENV) $(BIN)/dbt compile --quiet --target-path $(CURDIR)/target/lint
	cd integration_tests && $(LINT_ENV) KANON_SCHEMA=lint_it ../$(BIN)/dbt deps --quiet \
	  && $(LINT_ENV) KANON_SCHEMA=lint_it ../$(BIN)/dbt build --quiet --target-path $(CURDIR)/target/lint
	$(BIN)/sqlfluff lint --config .sqlfluff-compiled target/lint/compiled
	$(BIN)/ruff check python_helpers tests
	$(BIN)/mypy

## bench: release cost against the bare aggregate (see BENCHMARKS.md)
bench: $(STAMP)
	$(BIN)/python -m kanon_tools bench $(BENCH_ARGS)

## lock: re-resolve requirements.in into the pinned requirements.txt
lock:
	rm -rf /tmp/kanon-lock && $(PYTHON) -m venv /tmp/kanon-lock
	/tmp/kanon-lock/bin/pip install --quiet -r requirements.in
	/tmp/kanon-lock/bin/pip freeze --all | grep -v '^pip==' > requirements.txt

clean:
	rm -rf $(VENV) target logs dbt_packages integration_tests/target integration_tests/dbt_packages *.duckdb
