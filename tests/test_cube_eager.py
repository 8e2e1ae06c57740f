"""Cube kernels on the eager backend: each call runs on the cube core's memories as it is made, with the
simulator's executors, so the result is the simulator's to the bit; the hazards the cube pipe model finds
are raised before anything runs."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.runtime.eager import EagerRuntime

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"


def load(name: str):
    import sys
    sys.path.insert(0, str(EXAMPLES))          # matmul_bias_relu imports matmul_cube
    try:
        spec = importlib.util.spec_from_file_location(f"{name}_eager_test", EXAMPLES / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(EXAMPLES))
    return mod


@pytest.mark.parametrize("name,kernel", [("matmul_cube", "matmul_cube"), ("matmul_bias_relu", "matmul_bias_relu"),
                                         ("matmul_adv", "matmul_kernel")])
def test_eager_equals_sim_on_the_cube_examples(name, kernel, monkeypatch):
    mod = load(name)
    sim_out, want = mod.run()
    launches = []
    real = EagerRuntime.launch
    monkeypatch.setattr(EagerRuntime, "launch", lambda self, art, job: (launches.append(art.cube),
                                                                         real(self, art, job)))
    setattr(mod, kernel, asc.jit(getattr(mod, kernel), backend="eager"))
    eager_out, _ = mod.run()
    assert launches and all(launches)              # it ran on eager, as a cube kernel
    np.testing.assert_array_equal(eager_out, sim_out)
    np.testing.assert_allclose(eager_out.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=5e-2)


def test_eager_raises_the_race_the_cube_simulator_finds():
    mod = load("matmul_cube")
    racy = asc.jit(mod.matmul_cube, backend="eager", auto_sync=False)
    a = np.ones((32, 32), np.float16)
    c = np.zeros((32, 32), np.float16)
    with pytest.raises(asc.RaceError):
        racy[1](a, a, c, 32, 32, 32)
    assert not c.any()                              # refused before anything ran
