# Both targets bootstrap .venv themselves, so a fresh clone needs only python3 (>= 3.11).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test quick lint typecheck pytest clean miniapp claim

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2
	@$(BIN)/python -m pip install --quiet --editable '.[dev]' >&2
	@touch $(STAMP)

run: $(STAMP)
	@$(BIN)/python -m bot

# The console against the bundled fake sites (no network): a scripted H100 stock flip and
# price drop show both kinds of alert, then the bot is yours (tests/fakes/demo.py).
demo: $(STAMP)
	@$(BIN)/python -m tests.fakes.demo

# What the answer claims of its accuracy and the range it prints: regenerated from the
# published measurements, leaving one repository out (estimator/data/accuracy.csv).
claim: $(STAMP)
	$(BIN)/python -m bench.estimator_accuracy --quiet --write-claim

test: lint typecheck pytest

# The inner loop: everything but the tests that start real bot processes (marker `processes`,
# a third of the suite's time). CI and a submission run `make test`.
quick: lint typecheck
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile -m "not processes"

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# Four workers on two cores (pytest-xdist): the tests that start real bot processes
# (marked `processes`) spend much of their time waiting on elections, leases and refresh
# intervals, and the workers beyond two fill that idle time; they are handed out first
# (tests/conftest.py), kept in that order by --no-loadscope-reorder (xdist would otherwise
# sort files by their number of tests, leaving those one-test 25 s files to run last and
# alone). Measured in-tree on this 2-core machine, 2026-12-07, others' work beside it (load
# average 3-5): 3 workers 144.5 s, 4 workers 120.7 s and 123.0 s, 5 workers 141.5 s; with
# two CPU-bound processes beside it too, 4 workers stay green (212.8 s).
# loadfile hands out whole files, so a module-scoped fixture (the README examples in
# tests/e2e/test_newcomer.py) is set up once, on one worker (loadgroup would not: pytest 9
# ignores how it renames tests).
# PYTEST_WORKERS=0 runs in this process alone.
# PYTHONDONTWRITEBYTECODE (set in some shells and images) would make every worker rewrite
# the asserts of every test module again at each run, ~4 s of CPU a worker; the rewritten
# modules are cached in the ignored __pycache__ folders instead.
PYTEST_WORKERS ?= 4
pytest: $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The Telegram Mini App's front end, built into bot/miniapp/static (committed, so running the
# bot needs no node); this target needs node and npm.
miniapp:
	cd miniapp && npm ci && npm run build

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
