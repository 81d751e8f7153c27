# Two entry points (see README): `make serve` and `make test`. Both set up what they need:
# serving installs gruft alone (SQLite; no test, benchmark or PostgreSQL packages), the tests
# install the `test` extra too (PostgreSQL support, the benchmark's, pytest, Playwright, ruff).
.PHONY: serve test setup lint
PYTHON ?= python3
VENV := .venv
SERVE_STAMP := $(VENV)/.installed-serve
TEST_STAMP := $(VENV)/.installed-test

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip

$(SERVE_STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install -q --config-settings editable_mode=compat -e .
	touch $(SERVE_STAMP)

$(TEST_STAMP): pyproject.toml | $(VENV)/bin/python
	$(VENV)/bin/pip install -q --config-settings editable_mode=compat -e '.[test]'
	touch $(TEST_STAMP)

setup: $(TEST_STAMP)

serve: $(SERVE_STAMP)
	$(VENV)/bin/gruft serve $(ARGS)

test: $(TEST_STAMP)
	bash scripts/test.sh

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check .
