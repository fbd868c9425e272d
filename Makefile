# litdesk — two commands: `make run` and `make test`. Both set up .venv on a fresh machine.
SHELL := /bin/bash
## The interpreter of .venv: the distribution's python3.11 where it has venv (Debian's links
## libpython statically; pyenv's build here is --enable-shared without --enable-optimizations: the
## same test files took 12 % less CPU on Debian's, bench/RESULTS.md "The distribution's
## interpreter"), else the first python3.11 on PATH, else python3. PYTHON=... chooses another.
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell for p in /usr/bin/python3.11 python3.11 python3; do c=$$(command -v $$p) && $$c -c 'import venv, ensurepip' 2>/dev/null && { echo $$c; break; }; done)
endif
VENV ?= .venv
PY := $(VENV)/bin/python
ARGS ?= --help
RUN_ARGS ?= $(if $(filter --help,$(ARGS)),,$(ARGS))
FIXTURES_DEFAULT := $(abspath ../shared/fixtures)
export LITDESK_FIXTURES ?= $(if $(wildcard $(FIXTURES_DEFAULT)),$(FIXTURES_DEFAULT),)
export LITDESK_TEST_POSTGRES_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: setup browser node run cli test lint format bench bench-env clean

$(VENV)/.installed: pyproject.toml requirements-vocab.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	$(PY) -m pip install --quiet --no-deps --only-binary :all: --require-hashes -r requirements-vocab.txt
	touch $@

setup: $(VENV)/.installed

## Debian's chromium, its headless shell and firefox-esr for the browser tests (Playwright drives
## the headless shell, or chromium where the shell cannot be installed; firefox-esr runs headless
## on its own; nothing is downloaded by Playwright)
browser:
	@missing=""; for b in chromium chromium-headless-shell firefox-esr; do command -v $$b >/dev/null 2>&1 || missing="$$missing $$b"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    (apt-get update -qq || true) && \
	    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null \
	      || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	        $$(echo "$$missing" | sed 's/ chromium-headless-shell//') >/dev/null; }; \
	  else echo "not installed:$$missing; their browser tests will skip (install Debian's$$missing)"; fi; fi

## axe-core for the accessibility checks of the browser tests, from the npm registry with the
## lock file (node_modules/ is not committed; without npm those checks skip)
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null 2>&1; then npm ci --no-audit --no-fund --silent && touch $@; \
	else echo "npm is not installed; the accessibility checks will skip"; fi

node: node_modules/.installed

## make run — the offline demo workspace at http://127.0.0.1:8765 (litdesk serve --demo; its
## own folder, made on first use). Your own workspace: make run ARGS=serve (any `litdesk serve`
## options after it, e.g. ARGS="serve --open"); ARGS="--open" opens the demo in the browser.
## SETUP_SECONDS: a fresh set-up measured on a shared 2-core machine (247 s wall; pip's downloads
## and wheels for the dev and vocabulary extras).
SETUP_SECONDS ?= 250
RUN_SERVE := $(filter serve,$(firstword $(RUN_ARGS)))
## the address the echo names: litdesk's default, unless ARGS gives --port or --host (then
## litdesk's own first line says where it serves)
RUN_AT := $(if $(filter --port% --host%,$(RUN_ARGS)),,at http://127.0.0.1:8765 )
run:
	@if ! $(MAKE) --no-print-directory -q setup 2>/dev/null; then \
	  echo "Setting up litdesk in $(VENV) (first run: about $(SETUP_SECONDS) s; later runs: none) …"; \
	  $(MAKE) --no-print-directory setup || exit 1; fi
ifeq ($(RUN_SERVE),serve)
	@echo "Opening your own workspace ($(VENV)/bin/litdesk $(RUN_ARGS)) $(RUN_AT)…"
	$(VENV)/bin/litdesk $(RUN_ARGS)
else
	@echo "Opening the demo workspace $(RUN_AT)… (your own workspace: make run ARGS=serve or $(VENV)/bin/litdesk serve)"
	@$(VENV)/bin/litdesk serve --demo $(RUN_ARGS)
endif

## make cli ARGS="import refs.ris" — any other litdesk command
cli: setup
	$(VENV)/bin/litdesk $(ARGS)

lint: setup
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/mypy

format: setup
	$(VENV)/bin/ruff check --fix src tests bench
	$(VENV)/bin/ruff format src tests bench

## make test — lint, type-check and the whole suite (TEST_WORKERS processes, default 3: on two
## cores a third worker fills the time the others wait on servers, leases and browsers; 12
## such files took 273 s with 2 workers, 157 s with 3, 206 s with 4, while the whole suite is
## mostly CPU-bound: 3,815 tests in 809 s with 3 workers, the CPU 94% busy)
## Bytecode is kept even where PYTHONDONTWRITEBYTECODE is set: without it each server or
## worker process the tests start compiled litdesk anew (importing the web app: 2.3 s of
## CPU, 1.6 s with its bytecode) and each pytest process rewrote every test module
## (collecting the suite: 14.9 s of CPU, 5.0 s with pytest's cache; one per xdist worker).
## On a clean clone the workers would each rewrite every test module at the same moment (no
## cache yet): tests/_warm_rewrites.py writes pytest's cache once first, in two processes.
## The workers take the longest files first (tests/_schedule.py, from tests/file_seconds.json;
## --no-loadscope-reorder keeps that order instead of xdist's most-tests-first).
## The python -c/-m processes the tests start (team servers, job and kill workers) are forked
## from one interpreter per worker that imported litdesk once (tests/_fork.py;
## LITDESK_TEST_FORK=0 starts each as a fresh interpreter).
TEST_WORKERS ?= 3
test: setup lint browser node
	$(PY) -m compileall -q src tests > /dev/null
	PYTHONDONTWRITEBYTECODE= $(PY) tests/_warm_rewrites.py --jobs 2
	PYTHONDONTWRITEBYTECODE= $(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder $(PYTEST_ARGS)

bench: setup
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	for f in bench/*_bench.py; do $(PY) $$f || exit 1; done

## ASReview LAB, the screening bench's peer, in the bench's own environment (not a litdesk
## dependency; git-ignored): make bench-env, then .venv/bin/python bench/screening_bench.py
ASREVIEW_VERSION ?= 3.0.8
bench/.venv-asreview/.installed:
	$(PYTHON) -m venv bench/.venv-asreview
	bench/.venv-asreview/bin/python -m pip install --quiet --upgrade pip
	bench/.venv-asreview/bin/python -m pip install --quiet 'asreview==$(ASREVIEW_VERSION)'
	touch $@

bench-env: bench/.venv-asreview/.installed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache node_modules
