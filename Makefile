# Two entry points (see README): `make serve` and `make test`. Both set up what they need:
# serving installs gruft alone (SQLite; no test, benchmark or PostgreSQL packages), the tests
# install the `test` extra too (PostgreSQL support, the benchmark's, pytest, Playwright, ruff).
.PHONY: serve test setup lint messages
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

# The catalogs: extract every marked message (babel.cfg) and merge it into each language's .po;
# then translate the new entries (docs/translating.md). The .po files are read as they are (no .mo).
KEYWORDS := -k t -k tn:1,2 -k pt:1c,2 -k translate
messages: $(TEST_STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg $(KEYWORDS) -w 100 --sort-by-file \
		--project gruft -o api/translations/messages.pot .
	$(VENV)/bin/pybabel update -i api/translations/messages.pot -d api/translations \
		-w 100 --no-fuzzy-matching --ignore-obsolete
