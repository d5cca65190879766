# One set of commands for people and CI. Every target bootstraps .venv on first use and
# reinstalls only when pyproject.toml changed (the stamp file records the last install).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup play test test-postgresql lint types bench demo serve cluster clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

play: setup
	$(VENV)/bin/carom play

serve: setup
	$(VENV)/bin/carom serve

# PostgreSQL, Redis and three nodes on loopback (docs/cluster.md); Ctrl-C stops them all.
cluster: setup
	$(PY) -m server.cluster.local

test: setup
	CAROM_RULE_COVERAGE=1 $(PY) -m pytest

# The server tests again, on PostgreSQL (a throwaway one the tests start; skipped without it):
# only those whose server the store changes (tests/server/conftest.py). CI runs both.
test-postgresql: setup
	CAROM_TEST_STORE=postgresql $(PY) -m pytest tests/server

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: setup
	$(VENV)/bin/mypy --strict shared server

bench: setup
	$(PY) -m bench

demo: setup
	$(PY) -m client.demo

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
