"""The fast lane's tables (tests/conftest.py) name tests that exist, so a renamed test cannot slip
back into `make test-fast` unnoticed, and the suite's compile cache is outside the checkout."""
from __future__ import annotations

import ast
import fnmatch
import os
from functools import lru_cache
from pathlib import Path

import conftest

TESTS = Path(__file__).resolve().parent


@lru_cache(maxsize=None)       # "tests/*::..." patterns read every file: parse each once
def _test_names(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name.startswith("test_")]


def test_every_pattern_names_an_existing_test():
    stale = []
    for marker, patterns in conftest.MARKED.items():
        for pattern in patterns:
            file_part, _, test_part = pattern.partition("::")
            files = sorted(f for f in TESTS.parent.glob(file_part) if f.suffix == ".py")
            names = [n for f in files for n in _test_names(f)]
            if not any(fnmatch.fnmatchcase(n, test_part.split("[")[0]) or fnmatch.fnmatchcase(n + "[x]", test_part)
                       for n in names):
                stale.append(f"{marker}: {pattern}")
    assert not stale, "patterns that match no test: " + ", ".join(stale)


def test_compiled_backend_parameters_are_toolchain_tests():
    assert "toolchain" in conftest.lane_markers("tests/test_x.py::test_y[case-cpp-auto]")
    assert "toolchain" in conftest.lane_markers("tests/test_x.py::test_y[cpu_debug]")
    assert conftest.lane_markers("tests/test_x.py::test_y[case-sim-auto]") == []
    assert "toolchain" in conftest.lane_markers("tests/test_x.py::test_y[test_vadd-cpp1]")   # a repeated id


def test_tests_named_for_a_compiling_backend_are_toolchain_tests():
    assert "toolchain" in conftest.lane_markers("tests/test_x.py::test_example_on_cpp_equals_sim[adv_softmax]")
    assert "toolchain" in conftest.lane_markers("tests/test_x.py::test_emission_and_the_real_headers")
    assert conftest.lane_markers("tests/test_x.py::test_y[name_with_cpp_in_a_parameter]") == []


def test_tests_that_need_the_vendors_headers_are_toolchain_tests():
    # the skipif marker every cpu_debug / header-check test carries says so in its reason
    class Item:
        def __init__(self, reason: str) -> None:
            self.reason = reason

        def iter_markers(self, name: str):
            class M:
                kwargs = {"reason": self.reason}
            return [M()] if name == "skipif" else []
    assert conftest._needs_headers(Item("cpu_debug needs the Ascend C headers (ASC_TRACE_ASCENDC_HOME)"))
    assert conftest._needs_headers(Item("no CANN 8.1.RC1 headers: set ASC_TRACE_CANN81_HOME"))
    assert not conftest._needs_headers(Item("no /proc here"))


def test_brackets_in_a_pattern_are_the_parameter_list():
    slow = conftest.lane_markers
    assert "slow" in slow("tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[add_framework-sim]")
    assert "slow" not in slow("tests/test_pyasc_reference.py::test_pyasc_reference_file_passes[test_vadd-sim0]")
    assert "slow" in slow("tests/test_schedule_adversarial.py::test_adversarial_kernel_runs_correct[sim-deep4-1-0-3-2]")
    assert "slow" not in slow("tests/test_schedule_adversarial.py::test_adversarial_kernel_runs_correct[sim-row_mix-8-165-2]")


def test_the_compile_cache_is_not_in_the_checkout():
    cache = Path(os.environ["ASC_TRACE_CACHE_DIR"]).resolve()
    assert TESTS.parent not in cache.parents
