# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test install bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of torch first, so that nothing pulls the CUDA one.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[test,bench,models]'
	touch $(STAMP)

install: $(STAMP)

# Check the sample project; it has real mistakes, so findings (exit status 1) are expected.
demo: $(STAMP)
	$(BIN)/docfact check examples --no-cache || test $$? -eq 1

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
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
