"""CreateVecIndex, count form (Ascend C `CreateVecIndex(dst, firstValue, count)`,
include/basic_api/kernel_operator_vec_createvecindex_intf.h; A2: impl/basic_api/dav_c220/
kernel_operator_vec_createvecindex_impl.h): dst[i] = firstValue + i for i < count.

What the vendor's A2 code does, and so what this record computes bit for bit:
- the scalar unit writes the first 32-byte block with SetValue: firstValue + i in int64 arithmetic for the
  integer types (then converted to T, so it wraps), in float for the float types (then rounded to T);
- it sets an S_V flag of an id the TPipe hands out (GetTPipePtr()->FetchEventID) and V waits it;
- V fills each next block of the first 256-byte repeat with Adds(next, previous, 32 / sizeof(T)), then each
  next repeat with Adds(next, previous, 256 / sizeof(T)): every element past the first block is the one a
  block (or a repeat) before it plus that step, rounded to T at each step (float16 drifts from
  firstValue + i once the values pass 2048; int16 wraps).

How the pipes see it: the node is on V and writes dst[0, count) there. Its first block is the scalar
unit's, before the S_V handshake; the model puts that write on V too (as the reductions' scalar writes,
vec_reduce.py), so a reader of dst on MTE2 / MTE3 before the call must be ordered before V, which the
model checks, and before the scalar unit, which it does not (docs/operators.md, "asc.create_vec_index"). The S_V id the
call takes is kept out of the kernel's own flags (`api_events`, `api_sync`); a kernel without a TPipe gets
one from the lowering (lower/ascendc_pipe.py), as ReduceSum does.

This file is the whole op (the family "vec_record", docs/adding-an-op.md)."""
from __future__ import annotations

import numpy as np

from ...enums import HardEvent
from ..expr import Const
from ..node import Pipe
from .opdef import CppModel, OpDef, VecCost, register
from .record_family import operand_fields

BLOCK_BYTES, REPEAT_BYTES = 32, 256


def _accesses(node) -> list:
    dst, _first, count = node.args[:3]
    return [(dst, Const(0), count, True)]


def _index(first: np.ndarray | np.generic, count: int, dt: np.dtype, cores: int) -> np.ndarray:
    """(cores, count) of dt: the vendor's sequence (module docstring). `first` is already of dt (a
    (cores, 1) column when it differs by core)."""
    first = np.broadcast_to(np.asarray(first, dtype=dt).reshape(-1, 1), (cores, 1))
    out = np.zeros((cores, count), dtype=dt)
    blk, rep = BLOCK_BYTES // dt.itemsize, REPEAT_BYTES // dt.itemsize
    head = np.arange(min(count, blk))
    with np.errstate(over="ignore", invalid="ignore"):
        if np.issubdtype(dt, np.integer):
            out[:, :len(head)] = (first.astype(np.int64) + head).astype(dt)
        else:
            out[:, :len(head)] = (first.astype(np.float32) + head.astype(np.float32)).astype(dt)
        # V's Adds, in T's own arithmetic (integers wrap, floats round at each step)
        for start, step in [(b * blk, blk) for b in range(1, rep // blk)] + \
                           [(r * rep, rep) for r in range(1, -(-count // rep))]:
            if start >= count:
                break
            n = min(step, count - start)
            out[:, start:start + n] = out[:, start - step:start - step + n] + dt.type(step)
    return out


# The call's own handshake: the scalar unit sets S_V after writing the first block and V waits it before its
# adds. Modelled after the node (graph/hb.py api steps follow the instruction), it orders whatever the scalar
# unit did before the call before V's later instructions, a subset of what it orders on the device, and it
# makes the id the call takes clash with the kernel's own S_V flags as it would there.
_SYNC = ((Pipe.S, "set", HardEvent.S_V), (Pipe.V, "wait", HardEvent.S_V))


def _sync(node, value) -> tuple:
    return _SYNC


def _ref(first, count: int) -> np.ndarray:
    first = np.asarray(first)
    cores = first.shape[0] if first.ndim == 2 else 1
    return _index(first, count, first.dtype, cores)


# The cpp backend's model (graph/ops/cpp_model.py puts it into the generated header): the same sequence, the
# first block from firstValue, then each element the one a block / a repeat before plus that step, in T.
_CPP = """
template <typename T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const T& firstValue, uint32_t count)
{
    static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value || std::is_same<T, int16_t>::value
                  || std::is_same<T, int32_t>::value, "CreateVecIndex: half, float, int16_t or int32_t");
    if (count == 0) return;
    T* d = dst.span(count, "dst");
    const uint32_t blk = 32 / sizeof(T), rep = 256 / sizeof(T);
    for (uint32_t i = 0; i < count; ++i) {
        if (i >= blk) {
            const uint32_t step = i < rep ? blk : rep;
            d[i] = detail::wrap_add(d[i - step], static_cast<T>(static_cast<int32_t>(step)));
        } else if constexpr (std::is_integral<T>::value) {
            d[i] = static_cast<T>(static_cast<int64_t>(firstValue) + static_cast<int64_t>(i));
        } else {
            d[i] = static_cast<T>(static_cast<float>(firstValue) + static_cast<float>(i));
        }
    }
}
"""


register(
    OpDef("create_vec_index", "vec_record", Pipe.V, "CreateVecIndex",
          dtypes=frozenset({"float16", "float32", "int16", "int32"}),
          operands=("dst", "first_value:scalar", "count:int"),
          other_forms="the mask forms (dst, first_value, mask, repeat_time, dst_blk_stride, dst_rep_stride) are "
                      "not provided yet; asc.create_vec_index(dst, first_value, count) fills dst[0, count)",
          accesses=_accesses, ref=_ref, reads=(), writes=(0,), values=(1,),
          api_sync=_sync, api_events=(HardEvent.S_V,),
          cost=VecCost(40.0, 1.0, "assumed: the scalar unit's SetValue of one block and the S_V handshake "
                                  "(startup), then one vadds per repeat as vadds' 1.0 slope"),
          emit="AscendC::CreateVecIndex({dst}, {first_value}, {count});", emit_fields=operand_fields,
          cpp_model=CppModel(source=_CPP),
          printer="dst",
          declared={"CreateVecIndex/3": ("include/basic_api/kernel_operator_vec_createvecindex_intf.h:50",
                                         "interface/kernel_operator_vec_createvecindex_intf.h:39")},
          doc="Ascend C CreateVecIndex(dst, first_value, count): dst[i] = first_value + i for i < count "
              "(float16 / float32 / int16 / int32; past the first 32-byte block each value is the one a block "
              "or a 256-byte repeat before plus that step, in the element type, as the A2 code computes it)."),
)
