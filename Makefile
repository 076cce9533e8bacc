# The two commands of the README. Each creates .venv if it is missing, installs the
# package with its test extras (editable, without compiling), compiles the Cython extensions
# in place (only what changed), then runs. The set-up is quiet: a line of progress per step,
# and the compiler's output only when a build fails (build/build.log keeps the last one).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
N ?= 10000
EXTENSIONS := $(words $(wildcard pyx/*.pyx pyx/ops/*.pyx))
# -qq: pip's errors only (a machine's pip configuration may warn about every index it reads).
PIP := $(BIN)/python -m pip install -qq

.PHONY: test test-gpu bench bench-full bench-gpu fuzz build clean sanitize graphviz-dot docs lint

$(BIN)/python:
	@echo "creating $(VENV)..."
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml setup.py
	@echo "installing the build tools and the test dependencies into $(VENV) (torch's CPU" \
		"build, CuPy, NVRTC)..."
	@$(PIP) --upgrade "setuptools>=70.1" wheel "Cython>=3.3,<3.4" "numpy>=2"
	@AUTOGRAD_CY_SKIP_EXTENSIONS=1 $(PIP) --no-build-isolation -e ".[test]"
	@touch $(STAMP)

build: $(STAMP)
	@mkdir -p build
	@echo "building $(EXTENSIONS) extension modules (only what changed)..."
	@$(BIN)/python setup.py build_ext --inplace --quiet > build/build.log 2>&1 || \
		{ cat build/build.log; echo "the build failed (its log: build/build.log)"; exit 1; }

# draw_graph's tests render through Graphviz's dot program: Debian's graphviz package, installed
# (as root, quietly) only when dot is not on PATH yet.
graphviz-dot:
	@command -v dot >/dev/null 2>&1 || { mkdir -p build && \
		echo "installing Debian's graphviz (for dot)..." && \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		graphviz; } > build/apt.log 2>&1 || { cat build/apt.log; exit 1; }; }

# The suites run a second time with every tensor on the CUDA device (the emulated one without
# a GPU; the real one with make test-gpu), against torch on the CPU: all of them but the
# kernel tests of tests/cuda (device tests already), the million-node graphs (a CPU
# matter, far too slow on an emulator) and the install test (it runs the emulated device
# itself). The complex, bfloat16 and float16 suites run there too (cuda/complex.cuh, the
# __nv_bfloat16 instantiations); what they check against torch's CPU tensors alone (a repr
# without device=) is marked cpu_only in the file. On a real GPU bfloat16 tensors are refused
# (CuPy's arrays have no bfloat16 dtype: CupySeam.unsupported_dtypes), and the bfloat16 cases
# of tests/test_half_precision.py skip there, saying so: the emulated run is theirs.
DEVICE_SUITES := tests --ignore=tests/cuda --ignore=tests/gpu --ignore=tests/test_deep_graphs.py \
	--ignore=tests/test_install.py

# The linters, configured in pyproject.toml: ruff for the Python files, cython-lint for pyx/
# (it runs pycodestyle, which it finds on PATH: the venv's). Both run, and print only problems,
# one line each; either one failing fails the target.
lint: $(STAMP)
	@status=0; \
	$(BIN)/ruff check --quiet --output-format concise . || status=1; \
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/cython-lint pyx || status=1; \
	exit $$status

test: lint build graphviz-dot
	$(BIN)/python -m pytest -q tests --ignore=tests/gpu
	AUTOGRAD_CY_TEST_DEVICE=cuda $(BIN)/python -m pytest -q $(DEVICE_SUITES)

# On a machine with an NVIDIA GPU: every suite on the real device, the device tests, and
# tests/gpu (memory shared with CuPy and torch, which only a GPU can show).
test-gpu: build graphviz-dot
	AUTOGRAD_CY_CUDA=auto AUTOGRAD_CY_TEST_DEVICE=cuda $(BIN)/python -m pytest -q \
		$(DEVICE_SUITES)
	AUTOGRAD_CY_CUDA=auto $(BIN)/python -m pytest -q tests/cuda/test_devices.py \
		tests/cuda/test_launch_guards.py tests/gpu

# The benchmark's own extra (tqdm's progress bars, matplotlib's picture), once.
BENCH_STAMP := $(VENV)/.bench-installed
$(BENCH_STAMP): $(STAMP)
	@echo "installing the benchmark's extra (tqdm, matplotlib)..."
	@AUTOGRAD_CY_SKIP_EXTENSIONS=1 $(PIP) --no-build-isolation -e ".[bench]"
	@touch $(BENCH_STAMP)

# The overhead benchmark (benchmarks/README.md). bench: the headline workloads, each with a
# progress bar on stderr, then the table on stdout; the run's JSON, table, PNG and the
# libraries' own output (a .log) go to benchmarks/results/, and the PNG to latest.png, which
# the README shows. bench-full: every workload, depth to 100,000 (latest.png left alone).
bench: build $(BENCH_STAMP)
	$(BIN)/python -m benchmarks

bench-full: build $(BENCH_STAMP)
	$(BIN)/python -m benchmarks --full

# On a machine with an NVIDIA GPU: launches, bytes and times against torch on CUDA.
bench-gpu: build
	AUTOGRAD_CY_CUDA=auto $(BIN)/python -m benchmarks --device cuda

# The pictures of docs/internals.md and the README (draw_graph through Graphviz's dot), and
# the op table's rows of docs/derivatives.md.
docs: build graphviz-dot
	$(BIN)/python docs/images.py
	$(BIN)/python docs/op_table.py

# Differential fuzzing against torch: N random programs (tests/fuzz), then the report.
fuzz: build
	$(BIN)/python -m tests.fuzz --count $(N)

# The kernel tests of tests/cuda on the CPU emulator with every kernel built under
# ThreadSanitizer, then AddressSanitizer (tests/cuda/sanitize.py says how).
sanitize: build
	$(BIN)/python tests/cuda/sanitize.py

clean:
	rm -rf build autograd_cy/_C/*.so autograd_cy/_C/ops/*.so $(VENV) .ruff_cache
