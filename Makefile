# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
# torch is optional (asc.torch_op and the tests with tensors skip without it); the suite installs
# exactly this CPU build, the one this machine's package index serves without a CUDA download.
TORCH_VERSION := 2.13.0

.PHONY: venv demo test test-fast bench vendor-judge census surface clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test,vendor-ir]'
	$(VENV)/bin/pip install -q torch==$(TORCH_VERSION)
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(PY) examples/vadd.py

# Bytecode on for the suite even where the environment turns it off (PYTHONDONTWRITEBYTECODE=1 on these machines):
# without .pyc files every run compiles asc_trace and pytest rewrites every test module again, ~15 CPU-s of each run.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest

test: venv
	$(PYTEST) -q -n 2 tests

# The edit loop: everything not marked slow, toolchain or fuzz (tests/conftest.py), in under a minute.
test-fast: venv
	$(PYTEST) -q -n 2 -m "not slow and not toolchain and not fuzz" tests

# The front-end benchmark measures pyasc 1.1.1 in the same run, from its own virtualenv; benchmarks/peers.py
# makes its own for JAX (Pallas) and Triton (.venv-peers-jax, .venv-peers-triton) on its first run.
.venv-pyasc/bin/python:
	$(PYTHON) -m venv .venv-pyasc
	.venv-pyasc/bin/pip install -q pyasc==1.1.1

bench: venv .venv-pyasc/bin/python
	$(PY) benchmarks/sim_speed.py
	$(PY) benchmarks/pipe_model.py
	$(PY) benchmarks/calibration.py
	$(PY) benchmarks/frontend.py
	$(PY) benchmarks/cpp_vs_cpu_debug.py
	$(PY) benchmarks/vendor_sync.py
	$(PY) benchmarks/peers.py

# The vendor's compiler as a second judge: its auto-sync on every example against ours (docs/figures.md).
vendor-judge: venv
	$(PY) -m pytest -q tests/test_vendor_ir.py
	$(PY) benchmarks/vendor_sync.py --why

# pyasc compatibility (docs/pyasc-compat.md): the census runs pyasc's own kernels from a checkout
# (PYASC_SRC, e.g. `git archive` of hicann/pyasc at its 1.1.1 commit); the surface list reads the
# installed pyasc 1.1.1 of .venv-pyasc.
PYASC_SRC ?= /tmp/pyasc-src
census: venv
	$(PY) tools/pyasc_census.py $(PYASC_SRC) --json docs/pyasc-census.json --markdown docs/pyasc-census.md

surface: venv .venv-pyasc/bin/python
	$(PY) tools/pyasc_surface.py --pyasc-python .venv-pyasc/bin/python

clean:
	rm -rf $(VENV) .venv-pyasc .venv-peers-jax .venv-peers-triton .pytest_cache .hypothesis
