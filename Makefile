PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test

.PHONY: run test lint typecheck screenshots bench bench-lambda bench-http bench-large bench-peers clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Not editable: setuptools can install this layout (examples/ installed as wfx_examples) editable
# only through an import hook, and warns about it on every install; `make test` installs editable.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q .
	touch $@

# --no-compile: the suite reads bytecode only under PYTHONPYCACHEPREFIX (below), never the
# packages' own __pycache__, so compiling all ~100 packages at install (48-57 s -> 38-45 s) was lost
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q --no-compile -e ".[test]"
	@# the browser tests drive Debian's Chromium (never a downloaded one); CI runs as root
	@command -v chromium >/dev/null || (apt-get update -q && apt-get install -y -q chromium)
	touch $(VENV)/.installed $@

## make run: create the virtualenv, install wfx and run the bundled example on SQLite + the local runner
run: $(VENV)/.installed
	$(BIN)/wfx demo

# Bytecode kept, under the virtualenv (the environment may set PYTHONDONTWRITEBYTECODE): the suite
# starts hundreds of Python processes, each compiling wfx's modules again without it
KEEP_BYTECODE := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache

# The suite's temporary files (homes, databases, tens of thousands of small files) on tmpfs when
# /dev/shm has room for them; a TMPDIR of your own is kept. Each passed test's folder is removed
# at its end (a failed one's is kept), so little is held at once (a run left ~1.5 GB). On this
# machine's ext4, inode and journal work was 16 % of the CPU and 30 % of the wall of three
# process-heavy test files (docs/performance.md); nothing a test checks depends on the disk.
ifndef SUITE_TMPDIR
SUITE_TMPDIR := $(shell $(PYTHON) -c "import os; room = lambda s: s.f_bavail * s.f_frsize; \
	print(os.environ.get('TMPDIR') or ('/dev/shm' if os.access('/dev/shm', os.W_OK) \
	and room(os.statvfs('/dev/shm')) >= 4 << 30 else ''))")
endif

## make test: the whole suite (lint, types, unit, contract, features, integration, e2e)
# mypy uses one core: meanwhile the other compiles what the suite's workers import (a collection
# alone, its output dropped: the suite's own run reports any error), so that on a fresh clone the
# two workers do not each compile it again (a cold collection 43 s CPU, a warm one 14 s)
test: $(STAMP)
	$(BIN)/ruff check src tests features examples
	$(KEEP_BYTECODE) $(BIN)/pytest --collect-only >/dev/null 2>&1 & $(BIN)/mypy; status=$$?; wait; exit $$status
	$(KEEP_BYTECODE) $(if $(SUITE_TMPDIR),TMPDIR=$(SUITE_TMPDIR)) \
		$(BIN)/pytest -n 2 --dist loadgroup -o tmp_path_retention_policy=failed

lint: $(STAMP)
	$(BIN)/ruff check src tests features examples
	$(BIN)/ruff format --check src tests features examples

typecheck: $(STAMP)
	$(BIN)/mypy

## make screenshots: the browser tests, saving the viewer's screenshots into docs/viewer
screenshots: $(STAMP)
	WFX_SCREENSHOTS=docs/viewer $(BIN)/pytest -n 0 -p no:randomly tests/e2e/test_viewer_browser.py

## make bench: side-by-side benchmarks; writes bench-results.json
bench: $(STAMP)
	$(BIN)/python -m tests.bench.run --sizes 1000,10000,100000

## make bench-lambda: the Lambda handlers' cold starts beside a bare Mangum app (in `make bench`)
bench-lambda: $(STAMP)
	$(BIN)/python -m tests.bench.run --only lambda --no-profile --output bench-lambda.json

## make bench-http: a real `wfx serve`'s list route, 1 and 8 concurrent clients (in `make bench`)
bench-http: $(STAMP)
	$(BIN)/python -m tests.bench.run --only http --no-profile --output bench-http.json

bench-large: $(STAMP)
	$(BIN)/python -m tests.bench.run --sizes 1000,10000,100000,1000000

## make bench-peers: the same trivial 3-step run in wfx, raw sqlite3, Prefect 3 and Dagster, side
## by side; writes bench-peers.json and the table in docs/performance.md. Each peer gets its own
## virtualenv under build/peers (never wfx's), installed once: the stamp file skips it after.
PEERS := build/peers

$(PEERS)/%/.installed:
	$(PYTHON) -m venv $(PEERS)/$*
	$(PEERS)/$*/bin/pip install -q --upgrade pip
	$(PEERS)/$*/bin/pip install -q "$(PEER_REQUIREMENT_$*)"
	touch $@

PEER_REQUIREMENT_prefect := prefect>=3,<4
PEER_REQUIREMENT_dagster := dagster>=1.8

bench-peers: $(STAMP) $(PEERS)/prefect/.installed $(PEERS)/dagster/.installed
	$(BIN)/python -m tests.bench.peers

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache bench-results.json
