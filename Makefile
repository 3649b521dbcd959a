# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench-solve bench-engine clean

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

bench-solve: $(STAMP)
	$(BIN)/python -m tests.bench.bench_solve

bench-engine: $(STAMP)
	$(BIN)/python -m tests.bench.bench_engine

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
