# evalsite: `make demo` and `make test` are the two commands of the README.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# The first Python >= 3.12 that runs: $$PYTHON if given, then python3.13/3.12 on
# PATH, then pyenv's versions, then python3.
PYTHON_CANDIDATES := $(PYTHON) python3.13 python3.12 \
	$(wildcard $(HOME)/.pyenv/versions/3.13*/bin/python3) \
	$(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3) \
	$(wildcard /root/.pyenv/versions/3.13*/bin/python3) \
	$(wildcard /root/.pyenv/versions/3.12*/bin/python3) \
	python3
FIND_PYTHON = for c in $(PYTHON_CANDIDATES); do \
	  if PYENV_VERSION= "$$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1; then \
	    echo "$$c"; exit 0; fi; done; exit 1

.PHONY: help venv demo test test-core-lowest lint bench serve worker beat clean

help:
	@echo "make demo   - install, migrate, load demo data, run web + Celery worker + beat (PORT=8000)"
	@echo "make test   - install dev deps, ruff, import-linter, mypy, pytest"
	@echo "make bench  - run the benchmarks in bench/"
	@echo "make test-core-lowest - the tests that need no database on Python 3.12 (.venv312)"

$(STAMP): pyproject.toml
	@py=$$($(FIND_PYTHON)) || { \
	  echo "error: evalsite needs Python >= 3.12 (Django 6); none found." >&2; \
	  echo "       Install one, or run: make PYTHON=/path/to/python3.12 ..." >&2; exit 1; }; \
	echo "using $$py ($$(PYENV_VERSION= $$py --version))"; \
	[ -x $(PY) ] && $(PY) -c 'import sys; sys.exit(sys.version_info < (3, 12))' || { rm -rf $(VENV); PYENV_VERSION= $$py -m venv $(VENV); }
	$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

venv: $(STAMP)

# The port the demo serves on: make demo PORT=8001
PORT ?= 8000

# .env (written once, then left alone) holds the demo's settings, so manage.py
# commands typed later in a new shell see the same configuration.
demo: $(STAMP)
	@mkdir -p var
	@$(PY) -m evalsite.envfile --demo .env --port $(PORT)
	DJANGO_DEBUG=true EVAL_HARNESS_ENABLED=true EVAL_SHADOW_MODE_ENABLED=true BENCHMARK_BASELINE_SNAPSHOTS_ENABLED=true BENCHMARK_DELTA_REPORTER_ENABLED=true MEMORY_RED_TEAM_BENCH_ENABLED=true $(PY) manage.py demo --addr 127.0.0.1:$(PORT)

lint: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

# -rs: say why each skipped test was skipped (e.g. "needs PostgreSQL").
test: lint
	@mkdir -p var
	$(VENV)/bin/pytest -rs $(PYTEST_ARGS)

# The tests that need no Django database (the cores, tests/core/ and tests/test_core_purity.py)
# on the lowest supported Python, 3.12, in .venv312 (installed again only when
# pyproject.toml changes).
LOWEST_CANDIDATES := $(LOWEST_PYTHON) python3.12 \
	$(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3) \
	$(wildcard /root/.pyenv/versions/3.12*/bin/python3)
VENV312 := .venv312
CORE_TESTS := tests/core $(wildcard tests/*/core) tests/test_core_purity.py
test-core-lowest:
	@py=""; for c in $(LOWEST_CANDIDATES); do \
	  if PYENV_VERSION= "$$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then py="$$c"; break; fi; done; \
	if [ -z "$$py" ]; then \
	  echo "error: no Python 3.12 found (python3.12 on PATH or pyenv's 3.12.x), so the lowest supported Python is not tested." >&2; \
	  echo "       Install one, or run: make LOWEST_PYTHON=/path/to/python3.12 test-core-lowest" >&2; exit 1; fi; \
	if [ "$$(cat $(VENV312)/.installed 2>/dev/null)" != "$$(sha256sum pyproject.toml)" ] || ! $(VENV312)/bin/python -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2>/dev/null; then \
	  echo "using $$py ($$(PYENV_VERSION= $$py --version)) for $(VENV312)"; \
	  rm -rf $(VENV312) && PYENV_VERSION= $$py -m venv $(VENV312) && \
	  $(VENV312)/bin/python -m pip install -q --disable-pip-version-check -e '.[dev]' && sha256sum pyproject.toml > $(VENV312)/.installed; fi
	@mkdir -p var
	$(VENV312)/bin/python --version
	$(VENV312)/bin/pytest -q $(PYTEST_ARGS) $(CORE_TESTS)

# Every benchmark runs, even after one exits non-zero (a missed target, which
# a loaded machine makes likely, or an error); the list of those comes last.
# A benchmark is a bench/*.py with a __main__ block (the others are modules
# they import); bench/scale.py runs its --quick sizes (10^4, 10^5 thoughts).
# The Postgres-only ones (scale, workers, load) need DATABASE_URL=postgres://
# and, for workers and load, CELERY_BROKER_URL=redis://.
BENCHES ?= $(shell grep -l '^if __name__ == "__main__":' bench/*.py)
bench: $(STAMP)
	@failed=""; for f in $(BENCHES); do \
	  case $$f in bench/scale.py) args=--quick;; *) args=;; esac; \
	  echo "== $$f $$args"; $(PY) $$f $$args || failed="$$failed $$f"; done; \
	if [ -n "$$failed" ]; then echo "exited non-zero (a target missed, or an error):$$failed"; exit 1; fi

clean:
	rm -rf $(VENV) $(VENV312) var artifacts staticfiles
