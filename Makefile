# cardroom — every target builds what it needs from nothing (a Python 3.11 on PATH is enough).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint types pytest bench clean proto

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m services.demo

# Regenerate services/gen from proto/ (committed; a test fails when it is stale).
proto: $(STAMP)
	$(BIN)/python -m services.protogen

lint: $(STAMP)
	$(BIN)/ruff check services tests bench migrations
	$(BIN)/ruff format --check services tests bench migrations

types: $(STAMP)
	$(BIN)/mypy services

pytest: $(STAMP)
	$(BIN)/pytest

test: lint types pytest

# make bench BENCH_ARGS='--quick' (or section names: rules douzero) for a subset.
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps 'douzero==1.1.0'
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
