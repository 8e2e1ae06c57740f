import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

# The tests compare every backend against NumPy; the NPU is opted into explicitly.
os.environ.setdefault("ASC_TRACE_BACKEND", "sim")
os.environ.setdefault("ASC_TRACE_CHECK", "1")   # verify the graph after every pass
# compiled host libraries are shared by the test workers (the cache is safe across processes)
os.environ.setdefault("ASC_TRACE_CACHE_DIR", str(ROOT / ".pytest_cache" / "asc_trace_cache"))
# the header check and the cpu_debug backend use the vendor's Ascend C headers next to the checkout
# (the one rule, shared with `asc-trace info`: lower/ascendc_headers.devkit_beside_checkout)
from asc_trace.lower.ascendc_headers import devkit_beside_checkout  # noqa: E402

_KIT = devkit_beside_checkout()
if _KIT is not None:
    os.environ.setdefault("ASC_TRACE_ASCENDC_HOME", str(_KIT))


def pytest_addoption(parser):
    parser.addoption("--runtime", default="cpu", help="'npu' also runs the tests marked npu (needs an Ascend NPU)")
    parser.addoption("--update-golden", action="store_true", help="rewrite tests/golden/* from the current output")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runtime") == "npu":
        return
    skip = pytest.mark.skip(reason="needs an Ascend NPU: run with --runtime=npu")
    for item in items:
        if "npu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
