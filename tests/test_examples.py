"""The example operators, each against its NumPy reference, on every CPU backend; the backends
agree with each other byte for byte."""
import importlib

import numpy as np
import pytest

EXAMPLES = {   # module -> (rtol, atol) against NumPy (0: exact)
    "axpy": (0, 0),
    "leaky_relu": (0, 0),
    "softmax": (1e-5, 1e-7),     # exp on the vector unit, and asc_trace's summation order
    "rmsnorm": (1e-5, 1e-6),
    "vadd_tail": (0, 0),
    "softmax_rows": (1e-5, 1e-7),
    "tile_range": (0, 0),
    "tail_core": (0, 0),
    "halving": (0, 0),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_on_every_backend(name):
    mod = importlib.import_module(name)
    rtol, atol = EXAMPLES[name]
    results = {}
    for backend in ("sim", "eager", "cpp"):     # cpu_debug: test_cpu_debug.py
        got, want = mod.run(backend)
        if rtol == atol == 0:
            np.testing.assert_array_equal(got, want, err_msg=f"{name} on {backend}")
        else:
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=f"{name} on {backend}")
        results[backend] = got
    assert results["sim"].tobytes() == results["eager"].tobytes() == results["cpp"].tobytes()


def test_vadd_tail_really_has_a_tail():
    import vadd_tail
    assert vadd_tail.run.__defaults__[2] % vadd_tail.TILE != 0


def test_softmax_schedule():
    import asc_trace as asc
    import softmax
    x = np.zeros((32, 256), np.float32)
    g = asc.compile(softmax.softmax_kernel, (x, x, 4, 256)).graph
    flags = {(n.args[0].name, str(n.args[1])) for n in g if n.op in ("set_flag", "wait_flag")}
    events = {ev for ev, _id in flags}
    # ReduceMax/ReduceSum hand their result to the scalar unit themselves (a V_S set and wait inside the
    # call, graph/hb.py): the reads after them need no flag; the writes after the reads (S -> V) do, on ids
    # other than 0, which the calls take for their own S_V
    assert {"MTE2_V", "S_V", "V_MTE3", "MTE3_MTE2"} <= events and "V_S" not in events
    assert ("S_V", "0") not in flags
    assert any(n.op == "local_tensor" and n.regions for n in g)         # the row buffer is double-buffered


@pytest.mark.filterwarnings("ignore:asc.autotune")     # the configs that overflow the UB are skipped
def test_autotune_example():
    import autotune_silu
    got, want = autotune_silu.run(n=48 * 2048)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    tuner = autotune_silu.silu
    assert tuner.best_config in autotune_silu.CONFIGS
    assert tuner.timings[tuner.best_config] == min(tuner.timings.values())
