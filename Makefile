# cardroom — every target builds what it needs from nothing (a Python 3.11 on PATH is enough).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install run test lint types pytest bench clean proto buf apidoc

# setup.py and the .pyx: the optional compiled rules core, rebuilt when they change.
$(STAMP): pyproject.toml setup.py services/rules/_native.pyx
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,browser]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/python -m services.demo

# Regenerate services/gen from proto/ (committed; a test fails when it is stale).
proto: $(STAMP)
	$(BIN)/python -m services.protogen

# Regenerate the reference tables of docs/api.md from the proto comments (a test fails when
# they are stale).
apidoc: $(STAMP)
	$(BIN)/python -m services.apidoc

lint: $(STAMP)
	$(BIN)/ruff check services tests bench migrations
	$(BIN)/ruff format --check services tests bench migrations
	$(BIN)/lint-imports

types: $(STAMP)
	$(BIN)/mypy services

# The rules tests of moves and patterns run a second time on the pure-Python core (the
# reference; CARDROOM_PURE=1), so the golden counts, the brute-force oracle and the properties
# check both cores (~40 s; the game-level tests, slower and core-blind, run once).  Without the
# compiled core built, both runs use the pure one.
RULES_CORE_TESTS := tests/rules/test_moves.py tests/rules/test_properties.py \
	tests/rules/test_rule_examples.py tests/rules/test_native.py

pytest: $(STAMP)
	$(BIN)/pytest
	CARDROOM_PURE=1 $(BIN)/pytest $(RULES_CORE_TESTS) -p no:cacheprovider \
		--deselect tests/rules/test_native.py::test_both_cores_agree_on_random_positions

# The proto contract: `buf lint` (buf.yaml) and `buf breaking` against proto/released.binpb,
# the image of the released API (CHANGELOG.md says when and why it was last updated).  buf
# comes from npm, pinned by package-lock.json; without node/npm the step says so and is skipped.
BUF := node_modules/.bin/buf

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error

buf:
	@if command -v npm >/dev/null && command -v node >/dev/null; then \
		$(MAKE) --no-print-directory node_modules/.package-lock.json && \
		$(BUF) lint && $(BUF) breaking --against proto/released.binpb && echo "buf: lint and breaking OK"; \
	else echo "buf: skipped (node/npm not found; CI runs it)"; fi

test: lint types buf pytest

# make bench BENCH_ARGS='--quick' (or section names: rules douzero games) for a subset.
# Bench-only extras, --no-deps (never torch): DouZero's move generator, RLCard with the
# two packages its doudizhu env imports (numpy; termcolor, via rlcard.make's env registry),
# and OpenSpiel (its pyspiel module alone: wheels exist for CPython 3.11 on x86_64 Linux).
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet --no-deps 'douzero==1.1.0'
	$(BIN)/python -m pip install --quiet --no-deps 'rlcard==1.2.0' 'numpy==2.4.6' 'termcolor==3.3.0'
	$(BIN)/python -m pip install --quiet --no-deps 'open_spiel==2.0.2' \
		|| echo "bench: no open_spiel wheel for this machine; the openspiel section says so"
	$(BIN)/python -m bench $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	rm -f services/rules/_native.c services/rules/_native.*.so services/rules/_native.html
