# The two commands of the README: `make demo` and `make test`. Both create or reuse .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# What is installed: docfact with what its static checks need (demo), or everything (test).
DEMO_STAMP := $(VENV)/.installed-demo
FULL_STAMP := $(VENV)/.installed

.PHONY: demo test lint install bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# No model, no torch: the demo runs only the deterministic checks.
$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(FULL_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of torch first, so that nothing pulls the CUDA one.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[llm,models,test,bench]'
	touch $@ $(DEMO_STAMP)

install: $(FULL_STAMP)

# Check the sample project; it has real mistakes, so findings (exit status 1) are expected.
demo: $(DEMO_STAMP)
	$(BIN)/docfact check examples --no-cache || test $$? -eq 1

test: $(FULL_STAMP)
	$(BIN)/python -m pytest

# Lint, formatting and types, configured in pyproject.toml; all three run even if one fails.
lint: $(FULL_STAMP)
	status=0; \
	$(BIN)/ruff check --output-format=concise . || status=1; \
	$(BIN)/ruff format --check --output-format=concise . || status=1; \
	$(BIN)/mypy || status=1; \
	exit $$status

bench: $(FULL_STAMP)
	$(BIN)/python bench/stdlib_speed.py
	$(BIN)/python bench/mutation_recall.py
	$(BIN)/python bench/judge_cost.py
	$(BIN)/python bench/lsp_latency.py
	$(BIN)/python bench/sandbox_speed.py
	$(BIN)/python bench/sonar_speed.py
	$(BIN)/python bench/ssc_speed.py
	$(BIN)/python bench/java_mutation.py

clean:
	rm -rf $(VENV)
