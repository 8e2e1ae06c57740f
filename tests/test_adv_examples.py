"""The asc.adv examples (examples/adv_*.py): flag-free, vendor-sample style; each within its tolerance of
float64 on sim and eager, sim == eager byte for byte, cpp == sim byte for byte for the examples whose calls
the cpp backend models (toolchain/include/asc_trace_adv.h), and against the vendor's own implementation on
cpu_debug (where the Ascend C headers are at hand)."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import needs_headers

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

TOL = {"adv_softmax": (2e-3, 2e-4), "adv_rmsnorm": (4e-3, 4e-3), "adv_math": (4e-3, 1e-3),
       "adv_layernorm": (2e-5, 4e-6), "adv_swiglu": (4e-3, 1e-3), "adv_dequant": (2e-6, 1e-6),
       "adv_flash_softmax": (1e-5, 1e-7)}
EXAMPLES = ["adv_softmax", "adv_rmsnorm", "adv_quant", "adv_math", "adv_layernorm", "adv_swiglu", "adv_dequant",
            "adv_flash_softmax"]


def _tuple(v):
    return v if isinstance(v, tuple) else (v,)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_on_sim_and_eager(name):
    mod = importlib.import_module(name)
    got, want = mod.run("sim")
    got_e, _ = mod.run("eager")
    for g, ge, w in zip(_tuple(got), _tuple(got_e), _tuple(want)):
        assert g.tobytes() == ge.tobytes()
        if name == "adv_quant":
            assert np.abs(g - w).max() <= 1
        else:
            np.testing.assert_allclose(g.astype(np.float64), w, rtol=TOL[name][0], atol=TOL[name][1])


# adv_math (Tanh, Sinh) and adv_flash_softmax (SoftmaxFlashV2) use calls the cpp backend refuses
CPP_EXAMPLES = ["adv_softmax", "adv_rmsnorm", "adv_quant", "adv_layernorm", "adv_swiglu", "adv_dequant"]


@pytest.mark.parametrize("name", CPP_EXAMPLES)
def test_example_on_cpp_equals_sim(name):
    mod = importlib.import_module(name)
    got, _ = mod.run("sim")
    cpp, _ = mod.run("cpp")
    for g, c in zip(_tuple(got), _tuple(cpp)):
        assert g.tobytes() == c.tobytes()


def test_the_other_examples_are_refused_on_cpp_at_the_call():
    from asc_trace.errors import ToolchainError
    for name in sorted(set(EXAMPLES) - set(CPP_EXAMPLES)):
        with pytest.raises(ToolchainError, match="the cpp backend has no model of Ascend C"):
            importlib.import_module(name).run("cpp")


@needs_headers
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_against_the_vendor_implementation(name):
    """Bit-exact (SoftMax on half too, since its narrowing is A2's CAST_ROUND)."""
    mod = importlib.import_module(name)
    got, _ = mod.run("sim")
    vendor, _ = mod.run("cpu_debug")
    for g, v in zip(_tuple(got), _tuple(vendor)):
        assert g.tobytes() == v.tobytes()
