"""pyasc's module paths (`asc.language.*`) and struct kernel parameters (`asc.language.core.struct`)."""
from __future__ import annotations

import os

import numpy as np
import pytest

import asc_trace as asc
import asc_trace.language as lang
from asc_trace.language.core.dtype import KnownTypes as KT
from asc_trace.language.core.struct import Field, Struct, StructField
from asc_trace.language.fwk.tpipe import TBuf, TPipe, TQue, TQueBind


class Block(Struct):
    block_length = Field(dtype=KT.int32, default=0)


class Tile(Struct):
    tile_length = Field(dtype=KT.int32, default=0)
    tile_num = Field(dtype=KT.int32, default=0)


class Cfg(Struct):
    block = StructField(Block)
    tile = StructField(Tile)


@asc.jit
def scale(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: Cfg):
    off = asc.get_block_idx() * cfg.block.block_length
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + off, cfg.block.block_length)
    zg.set_global_buffer(z + off, cfg.block.block_length)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, cfg.tile.tile_length)
    for i in range(cfg.tile.tile_num):
        asc.data_copy(t, xg[i * cfg.tile.tile_length:], cfg.tile.tile_length)
        asc.muls(t, t, 3.0, cfg.tile.tile_length)
        asc.data_copy(zg[i * cfg.tile.tile_length:], t, cfg.tile.tile_length)


def test_language_paths_are_the_top_level_objects():
    assert lang.add is asc.add and lang.basic.data_copy is asc.data_copy
    assert lang.core.LocalTensor is asc.LocalTensor and lang.core.Struct is Struct
    assert (TPipe, TQue, TBuf) == (asc.TPipe, asc.TQue, asc.TBuf)
    assert KT.int32 is asc.int32 and KT.bool_ is asc.int8     # pyasc's bool_ is int8
    with pytest.raises(AttributeError):
        lang.basic.no_such_op    # noqa: B018


@pytest.mark.parametrize("backend", ["sim", "cpp", "cpu_debug"])
def test_struct_parameter_runs_and_is_a_snapshot(backend):
    if backend == "cpu_debug" and not os.environ.get("ASC_TRACE_ASCENDC_HOME"):
        pytest.skip("cpu_debug needs the Ascend C headers (ASC_TRACE_ASCENDC_HOME)")
    x = np.arange(4 * 128, dtype=np.float32)
    z = np.zeros_like(x)
    cfg = Cfg(tile=Tile(tile_length=64, tile_num=0))
    cfg.tile.tile_num = 2                  # assignment after construction, as pyasc's scripts do
    cfg.block = Block(block_length=128)
    asc.jit(scale, backend=backend)[4](x, z, cfg)
    np.testing.assert_array_equal(z, 3 * x)
    cfg.tile.tile_num = 1                  # a new value is a new specialisation, not the cached one
    z[:] = 0
    asc.jit(scale, backend=backend)[4](x, z, cfg)
    np.testing.assert_array_equal(z.reshape(4, 128)[:, :64], 3 * x.reshape(4, 128)[:, :64])
    assert not z.reshape(4, 128)[:, 64:].any()


def test_struct_fields_wrap_and_refuse():
    assert Block(block_length=2 ** 31).block_length == -2 ** 31     # int32 wraps as ctypes does
    with pytest.raises(asc.LaunchError, match="does not have a field 'nope'"):
        Block(nope=1)

    class Req(Struct):
        n = Field(dtype=KT.int32)
    with pytest.raises(asc.LaunchError, match="does not have a default value for .n."):
        Req()

    @asc.jit
    def writes(x: asc.GlobalAddress, cfg: Cfg):
        cfg.tile.tile_num = 3
    with pytest.raises(asc.TraceError, match="read-only inside the kernel") as e:
        writes[1](np.zeros(8, np.float32), Cfg())
    assert "test_pyasc_language.py" in str(e.value)


def test_tquebind_same_position_is_a_tque():
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        qi = TQueBind(src=asc.TPosition.VECIN, dst=asc.TPosition.VECIN, depth=1)
        qo = TQueBind(asc.TPosition.VECOUT, asc.TPosition.VECOUT, 1)
        pipe.init_buffer(que=qi, num=1, len=256)
        pipe.init_buffer(que=qo, num=1, len=256)
        a = qi.alloc_tensor(asc.float32)
        asc.data_copy(a, xg, 64)
        qi.enque(a)
        b = qi.deque(asc.float32)
        c = qo.alloc_tensor(asc.float32)
        asc.adds(c, b, 1.0, 64)
        qo.enque(c)
        qi.free_tensor(b)
        d = qo.deque(asc.float32)
        asc.data_copy(zg, d, 64)
        qo.free_tensor(d)
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    k[1](x, z)
    np.testing.assert_array_equal(z, x + 1)
    assert "AscendC::TQue<AscendC::TPosition::VECIN, 1>" in asc.compile(k, (x, z), core_num=1).source


def test_tquebind_other_pairs_are_refused_by_name():
    @asc.jit
    def k():
        TQueBind(asc.TPosition.VECIN, asc.TPosition.VECOUT, 1)
    with pytest.raises(asc.NotProvidedError, match="TQueBind") as e:
        k[1]()
    assert "test_pyasc_language.py" in str(e.value)


@pytest.mark.parametrize("name", ["TensorDesc", "ListTensorDesc"])
def test_absent_framework_names_say_what_to_use(name):
    assert not hasattr(asc, name)
    with pytest.raises(asc.NotProvidedError, match=f"asc.{name} is not provided") as e:
        getattr(asc, name)
    assert e.value.hint
    with pytest.raises(asc.NotProvidedError):
        getattr(lang.fwk, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        asc.no_such_name  # noqa: B018
