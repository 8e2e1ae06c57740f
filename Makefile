# Two commands do all set-up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python

.PHONY: venv demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --upgrade pip
	$(VENV)/bin/pip install -q -e '.[test]'
	touch $@

venv: $(VENV)/.installed

demo: venv
	$(PY) examples/vadd.py

test: venv
	$(PY) -m pytest -q -n 2 tests

bench: venv
	$(PY) benchmarks/sim_speed.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
