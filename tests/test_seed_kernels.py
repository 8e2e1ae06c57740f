"""The seed article's two vadd kernels run unchanged on 8 cores, exactly, on sim and eager."""
import numpy as np
import pytest

import asc_trace as asc
import vadd
import vadd_tque
from helpers import rand

BACKENDS = ["sim", "eager"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_manual_event_kernel(backend, dtype):
    x, y = rand(8 * 2048, dtype, 1), rand(8 * 2048, dtype, 2)
    z = np.zeros_like(x)
    asc.jit(vadd.vadd_kernel, backend=backend)[8](x, y, z, x.size // 8)
    np.testing.assert_array_equal(z, x + y)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_tque_kernel(backend, dtype):
    x, y = rand(8 * 2048, dtype, 3), rand(8 * 2048, dtype, 4)
    z = np.zeros_like(x)
    block = x.size // 8
    asc.jit(vadd_tque.vadd_kernel, backend=backend)[8](x, y, z, block, block // 16)
    np.testing.assert_array_equal(z, x + y)


def test_launch_with_stream_and_torch_tensors():
    torch = pytest.importorskip("torch")
    import asc_trace.runtime as rt
    x = torch.rand(8 * 2048)
    y = torch.rand(8 * 2048)
    z = torch.zeros_like(x)
    vadd.vadd_kernel[8, rt.current_stream()](x, y, z, x.numel() // 8)
    assert torch.equal(z, x + y)


def test_bfloat16_torch_tensors_are_copied_bit_exactly():
    torch = pytest.importorskip("torch")
    import vadd as v

    @asc.jit
    def copy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        xg.set_global_buffer(x, n)
        zg.set_global_buffer(z, n)
        t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
        asc.data_copy(t, xg, n)
        asc.set_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.wait_flag(asc.HardEvent.MTE2_MTE3, 0)
        asc.data_copy(zg, t, n)

    x = torch.randn(256).to(torch.bfloat16)
    z = torch.zeros_like(x)
    copy[1](x, z, 256)
    assert torch.equal(z, x)
    assert v  # the example module imports cleanly


def test_compiled_kernel_api():
    x, y = rand(8 * 256, np.float32), rand(8 * 256, np.float32, 9)
    z = np.zeros_like(x)
    ck = asc.compile(vadd.vadd_kernel, (x, y, z, 256), core_num=8)
    ck(x, y, z, 256)
    np.testing.assert_array_equal(z, x + y)
    import networkx as nx
    assert isinstance(ck.graph, asc.KernelGraph)
    assert isinstance(ck.graph.nx, nx.DiGraph)
    assert [p.name for p in ck.signature] == ["x", "y", "z", "block_length"]
    assert "kernel vadd_kernel(x: gm f32*" in str(ck.graph)
    z2 = np.zeros_like(z)
    ck[8](x, y, z2, 256)
    np.testing.assert_array_equal(z2, z)
    with pytest.raises(asc.LaunchError, match="compiled for"):
        ck(x.astype(np.float16), y.astype(np.float16), z.astype(np.float16), 256)
