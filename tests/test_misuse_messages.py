"""Misuse found trying the API as an adversary (issue #25): each a clear asc_trace error of one class on every
backend, at the user's line; and the newcomer's messages (`asc-trace info`) read well."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import OutOfBoundsError, ToolchainError
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at
from op_cases import gm

CPU_DEBUG = pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))
BACKENDS = ["sim", "eager", "cpp", CPU_DEBUG]


@asc.jit
def gather_from(x: asc.GlobalAddress, o: asc.GlobalAddress, z: asc.GlobalAddress, base: int, n: int):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
    off = asc.LocalTensor(asc.uint32, asc.TPosition.VECIN, 8192, 1024)
    out = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 16384, 1024)
    asc.data_copy(a, gm(x, 1024), 1024)
    asc.data_copy(off, gm(o, 1024), 1024)
    asc.duplicate(out, 0.0, 1024)
    asc.gather(out, a, off, base, n)  # MARK-gather-base
    asc.data_copy(gm(z, 1024), out, 1024)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("base, offset", [(-4, 4), (-4, 0), (1 << 33, 0), (-(1 << 40), 0)])
def test_a_gather_base_outside_uint32_is_refused_alike(backend, base, offset):
    # (-4, 4): base + offset is element 0, which the simulator once ran while the API (a uint32_t base) refused it
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros(1024, np.float32)
    with pytest.raises(OutOfBoundsError, match=rf"src_base_offset of asc.gather is {base}, outside 0\.\.4294967295") \
            as info:
        asc.jit(gather_from, backend=backend)[1](x, np.full(1024, offset, np.uint32), z, base, 64)
    assert_points_at(info.value, "MARK-gather-base")
    assert (z == 0).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_gather_base_at_the_last_element_runs_alike(backend):
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros(1024, np.float32)
    asc.jit(gather_from, backend=backend)[1](x, np.zeros(1024, np.uint32), z, 4092, 64)
    assert (z[:64] == 1023).all() and (z[64:] == 0).all()


def test_missing_tools_are_named_in_good_english():
    from asc_trace.toolchain.bisheng import find_toolchain
    with pytest.raises(ToolchainError, match="bisheng and ld.lld are not on PATH"):
        find_toolchain({"PATH": "/nonexistent"})


def test_info_says_how_to_empty_the_cache(capsys):
    from asc_trace.cli import main
    assert main(["info"]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("cache  ")]
    assert len(line) == 1 and "asc-trace cache clear" in line[0] and "no size limit" in line[0]


@asc.jit
def mask_wider_than_a_repeat(x: asc.GlobalAddress, z: asc.GlobalAddress):
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
    asc.data_copy(a, gm(x), 256)
    asc.add(a, a, a, 65, 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))  # MARK-mask-65
    asc.data_copy(gm(z), a, 256)


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp", CPU_DEBUG])
def test_a_mask_count_past_the_repeat_is_refused_in_normal_mode(backend):
    with pytest.raises(OutOfBoundsError, match="mask") as info:
        asc.jit(mask_wider_than_a_repeat, backend=backend)[1](np.ones(256, np.float32), np.zeros(256, np.float32))
    assert_points_at(info.value, "MARK-mask-65")
