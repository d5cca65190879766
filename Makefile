# One set of commands for people and CI. Every target bootstraps .venv on first use and
# reinstalls only when pyproject.toml changed (the stamp file records the last install).
# The interpreter the venv is made from: the distribution's CPython where it is 3.11 or newer,
# else the first python3 on the PATH. Distributions (Debian, Ubuntu, Fedora) build CPython with
# profile-guided and link-time optimisation; version managers such as pyenv build without them
# unless asked. On this project's machines both are there, and the suite spends a fifth less
# CPU on Debian's 3.11 than on pyenv's (docs/benchmarks.md, "Round 9"). `make PYTHON=...` picks
# another; an existing .venv keeps the interpreter it was made with.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in /usr/bin/python3 python3; do \
	$$p -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null && echo $$p && exit; \
	done; echo python3)
endif
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup play test test-postgresql lint types bench demo serve cluster clean web

setup: $(STAMP)

# uv installs the same requirements as pip in a few seconds instead of half a minute (it fetches
# in parallel); where uv cannot be had or cannot install them (pip's own index settings, say,
# which uv does not read), pip does it. uv lives in the venv, so `make clean` and
# `rm -r .venv` remove it too. Bytecode is written as modules are first imported, not for the
# whole of site-packages at install (uv's --compile-bytecode): that compiled 39 MB, mypy's and
# every Selenium protocol version's included, and took 3.5 to 4 s of the setup. `make test`'s
# collection pass then compiles what the workers import; during the run only 1.7 MB more was
# compiled (docs/benchmarks.md, round 10). uv has no dependencies, and only its binary runs, so
# pip neither resolves dependencies for it nor compiles its Python wrapper.
UV := $(VENV)/uv/bin/uv
# The minor line of pyproject.toml's build backend (uv_build): uv then builds the project itself.
UV_PACKAGE ?= uv>=0.13,<0.14
PIP_QUIET := --quiet --disable-pip-version-check --root-user-action=ignore

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv --without-pip $(VENV)
	@if (test -x $(UV) || $(PYTHON) -m pip install $(PIP_QUIET) --no-deps --no-compile --target $(VENV)/uv '$(UV_PACKAGE)') \
		&& $(UV) pip install --quiet --python $(PY) -e '.[dev]'; then \
		echo "installed the requirements with uv"; \
	else \
		echo "uv could not install the requirements: installing them with pip"; \
		$(PY) -m ensurepip --upgrade >/dev/null && \
		$(PY) -m pip install $(PIP_QUIET) --upgrade pip && \
		$(PY) -m pip install $(PIP_QUIET) -e '.[dev]'; \
	fi
	@touch $(STAMP)

play: setup
	$(VENV)/bin/carom play

serve: setup
	$(VENV)/bin/carom serve

# PostgreSQL, Redis and three nodes on loopback (docs/cluster.md); Ctrl-C stops them all.
cluster: setup
	$(PY) -m bench.local_cluster

# The suite's tests mostly wait on sockets, processes and table time, so several workers
# overlap those waits even on two cores (docs/benchmarks.md has the before and after).
# CAROM_RULE_COVERAGE=1: every rule marked tested in docs/rules.md must fire during the run.
TEST_WORKERS ?= 10
# The workers are forked from the controller once it has imported the test modules, instead of
# ten new interpreters importing them all again: 2.7 s of CPU each at the run's start
# (tests/forking.py). `make test FORK=` starts them as xdist does.
FORK ?= --fork-workers

# Where PYTHONDONTWRITEBYTECODE is set (some shells and CI images set it), every worker and every
# server process the tests start would compile each module and rewrite each test's asserts
# again: over a minute of CPU. The tests write bytecode, and a collection pass fills the caches
# before the workers start. On a fresh clone that pass rewrites every test module's asserts,
# about 10 s on one core: two passes over the two halves of the tree use both (about 7 s).
WARM = env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --collect-only -q -p no:cacheprovider
test: setup
	$(WARM) tests/client >/dev/null & client=$$!; \
	$(WARM) tests --ignore=tests/client >/dev/null; rest=$$?; \
	wait $$client && exit $$rest
	env -u PYTHONDONTWRITEBYTECODE CAROM_RULE_COVERAGE=1 $(PY) -m pytest -n $(TEST_WORKERS) $(FORK)

# The server tests again, on PostgreSQL (a throwaway one the tests start; skipped without it,
# an error in CI):
# only those whose server the store changes (tests/server/conftest.py). CI runs both.
test-postgresql: setup
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest --collect-only -q tests/server >/dev/null
	env -u PYTHONDONTWRITEBYTECODE CAROM_TEST_STORE=postgresql $(PY) -m pytest -n $(TEST_WORKERS) $(FORK) tests/server

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

types: setup
	$(VENV)/bin/mypy --strict shared server

bench: setup
	$(PY) -m bench

demo: setup
	$(PY) -m client.demo

# The browser client (docs/web.md): the only target that needs Node (18+) and npm. It installs
# the pinned @msgpack/msgpack (web/package-lock.json) and vendors it into
# server/net/web/static/vendor/, which is committed: play, test and a server install need no Node.
web:
	cd web && npm ci --no-audit --no-fund && node build.mjs

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
