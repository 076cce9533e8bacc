# The two commands of the README. Each creates .venv if it is missing, installs the
# package with its test extras (editable, without compiling), compiles the Cython extensions
# in place (only what changed), then runs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
N ?= 10000

.PHONY: test bench fuzz build clean sanitize

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml setup.py
	$(BIN)/python -m pip install --quiet --upgrade "setuptools>=70.1" wheel "Cython>=3" "numpy>=2"
	AUTOGRAD_CY_SKIP_EXTENSIONS=1 $(BIN)/python -m pip install --quiet --no-build-isolation -e ".[test]"
	touch $(STAMP)

build: $(STAMP)
	$(BIN)/python setup.py build_ext --inplace --quiet

test: build
	$(BIN)/python -m pytest -q tests

bench: build
	$(BIN)/python -m benchmarks

# Differential fuzzing against torch: N random programs (tests/fuzz), then the report.
fuzz: build
	$(BIN)/python -m tests.fuzz --count $(N)

# The kernel tests of tests/cuda on the CPU emulator with every kernel built under
# ThreadSanitizer, then AddressSanitizer (tests/cuda/sanitize.py says how).
sanitize: build
	$(BIN)/python tests/cuda/sanitize.py

clean:
	rm -rf build autograd_cy/_C/*.so autograd_cy/_C/ops/*.so $(VENV)
