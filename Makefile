# Both targets bootstrap .venv themselves, so a fresh clone needs only python3 (>= 3.11).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run demo test lint typecheck pytest clean

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

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

# One worker per core (pytest-xdist); loadgroup keeps an xdist_group's tests on one worker,
# so a module-scoped fixture (tests/e2e/test_newcomer.py) is built once. PYTEST_WORKERS=0
# runs in this process alone.
PYTEST_WORKERS ?= auto
pytest: $(STAMP)
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
