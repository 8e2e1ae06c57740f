"""`asc.adv.softmax`, pyasc's signature (`asc.language.adv.activation`), emitted as Ascend C `SoftMax<T>`."""
from __future__ import annotations

from typing import Any

from ..dtypes import float32
from ..errors import AlignmentError, DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import LogSoftMaxTiling, SoftmaxTiling, check_softmax_tiling, static_values


def softmax(dst: Any, sum: Any, max: Any, src: Any, tiling: SoftmaxTiling, temp_buffer: Any = None,  # noqa: A002
            reuse_source: bool = False, basic_block: bool = False, data_format_nz: bool = False, *,
            shape: tuple[int, int] | None = None) -> None:
    """Row softmax of src viewed as [m, k] (Ascend C SoftMax, ND): dst = exp(x - rowmax) / rowsum, with the row
    max and sum written to `max` / `sum`, reduceK = 32 / sizeof(T) elements per row (one 32-byte block; with
    half src and float sum / max, 16 floats; with a zero tiling the kernel computes reduceK from the sum / max
    type, as the vendor's kernel-side SoftMaxTilingFunc does: 8 floats).

    The shape is the tiling's (src_m, src_k) when it has one, else `shape=(m, k)`, else the [m, k] ShapeInfo
    src carries (`src.set_shape_info(asc.ShapeInfo(...))`, as pyasc's kernels give it); a zero or mismatching
    tiling is recomputed in the kernel from the shape and the temporary buffer, as the vendor does.

    Raises:
        TraceError: no shape; a tiling not known while tracing; basic_block / data_format_nz (not modelled).
        AlignmentError: k x sizeof(T) not a multiple of 32 bytes.
        DTypeError: src / dst not one of half, float; sum / max not T (or float with half T).
        UBOverflowError (at run time, before any write): temp_buffer below GetSoftMaxMinTmpSize.
    """
    loc = user_loc()
    if not isinstance(tiling, SoftmaxTiling):
        raise TraceError(f"asc.adv.softmax takes an asc.adv.SoftmaxTiling, got {type(tiling).__name__}", loc)
    values = static_values(tiling, "the SoftmaxTiling")
    if basic_block or data_format_nz:
        raise TraceError("asc.adv.softmax models the ND, non-basic-block SoftMax only", loc,
                         hint="call it with basic_block=False, data_format_nz=False")
    if shape is None and hasattr(src, "get_shape_info"):     # pyasc: the shape src carries (set_shape_info)
        dims = tuple(src.get_shape_info().shape)
        shape = (dims[0], dims[1]) if len(dims) == 2 else None
    m, k = (values[0], values[1]) if values[0] and values[1] else (shape or (0, 0))
    if not (isinstance(m, int) and isinstance(k, int) and m > 0 and k > 0):
        raise TraceError("asc.adv.softmax needs the shape [m, k]: a tiling with src_m / src_k, shape=(m, k), or "
                         "an [m, k] ShapeInfo on src (src.set_shape_info)", loc,
                         hint="asc.adv.softmax_tiling_func([m, k], type_size, tmp_bytes) fills one on the host")
    s = vec_operand(src, "src", "adv.softmax", loc)
    red = vec_operand(sum, "sum", "adv.softmax", loc).dtype
    if vec_operand(max, "max", "adv.softmax", loc).dtype is not red:
        raise DTypeError("sum and max of asc.adv.softmax must have one type", loc)
    if vec_operand(dst, "dst", "adv.softmax", loc).dtype is not s.dtype:
        raise DTypeError("dst and src of asc.adv.softmax must have one type", loc)
    if red is not s.dtype and not (red is float32 and s.dtype.name == "float16"):
        raise DTypeError(f"sum / max of asc.adv.softmax are {red}: they take src's type, or float with half src", loc)
    if k * s.dtype.itemsize % 32:
        raise AlignmentError(f"asc.adv.softmax's last axis is {k} x {s.dtype.itemsize} bytes, not a multiple of 32",
                             loc, hint="pad the rows to 32 bytes")
    if values[0] and values[1]:
        check_softmax_tiling(tiling, s.dtype.itemsize)
    record("adv_softmax", dict(dst=dst, sum=sum, max=max), {"src": src}, temp_buffer, counted=False,
           dtype_of="src", shape=(m, k), tiling=values, reduce_dtype=red)


def log_softmax(dst: Any, sum: Any, max: Any, src: Any, tiling: LogSoftMaxTiling, temp_buffer: Any,  # noqa: A002
                reuse_source: bool = False, data_format_nz: bool = False, *,
                shape: tuple[int, int] | None = None) -> None:
    """Ascend C `LogSoftMax<T>(dst, sum, max, src, sharedTmpBuffer, tiling, shapeInfo)` over rows of [m, k] (ND):
    the vendor's steps are SoftMax's, then Ln and a multiplication by log10(e), so dst = log10(softmax(x));
    sum / max as SoftMax writes them (one 32-byte block per row, type T). Arguments in the order of
    asc.adv.softmax (tiling, then the buffer, which LogSoftMax always takes).

    Raises:
        TraceError: no shape (a tiling with src_m / src_k, or shape=(m, k)), or the two disagree; NZ format.
        AlignmentError: k x sizeof(T) not a multiple of 32 bytes.
        DTypeError: the four tensors not one type of half, float.
        UBOverflowError (at run time, before any write): temp_buffer below GetLogSoftMaxMinTmpSize.
    """
    loc = user_loc()
    if not isinstance(tiling, LogSoftMaxTiling):
        raise TraceError(f"asc.adv.log_softmax takes an asc.adv.LogSoftMaxTiling, got {type(tiling).__name__}", loc,
                         hint="asc.adv.log_softmax_tiling_func([m, k], type_size, tmp_bytes)")
    if data_format_nz:
        raise TraceError("asc.adv.log_softmax models the ND format only", loc)
    values = static_values(tiling, "the LogSoftMaxTiling")
    if values[0] and values[1] and shape is not None and tuple(shape) != (values[0], values[1]):
        raise TraceError(f"shape={tuple(shape)} and the tiling's ({values[0]}, {values[1]}) disagree", loc)
    m, k = (values[0], values[1]) if values[0] and values[1] else (shape or (0, 0))
    if not (isinstance(m, int) and isinstance(k, int) and m > 0 and k > 0):
        raise TraceError("asc.adv.log_softmax needs the shape [m, k]: a tiling with src_m / src_k, or shape=(m, k)",
                         loc, hint="asc.adv.log_softmax_tiling_func([m, k], type_size, tmp_bytes) fills one")
    refs = {n: vec_operand(t, n, "adv.log_softmax", loc) for n, t in dict(dst=dst, sum=sum, max=max, src=src).items()}
    if len({r.dtype for r in refs.values()}) != 1:
        raise DTypeError("dst, sum, max and src of asc.adv.log_softmax must have one type (" +
                         ", ".join(f"{n} is {r.dtype}" for n, r in refs.items()) + ")", loc)
    itemsize = refs["src"].dtype.itemsize
    if k * itemsize % 32:
        raise AlignmentError(f"asc.adv.log_softmax's last axis is {k} x {itemsize} bytes, not a multiple of 32", loc,
                             hint="pad the rows to 32 bytes")
    record("adv_log_softmax", dict(dst=dst, sum=sum, max=max), {"src": src}, temp_buffer, counted=False,
           dtype_of="src", tmp_required=True, shape=(m, k), tiling=values, reduce_dtype=refs["src"].dtype)


def _no_variants(name: str, high_precision: bool, high_performance: bool) -> None:
    if high_precision or high_performance:
        raise TraceError(f"asc.adv.{name} models the default variant only (highPrecision = highPerformance = false)",
                         user_loc(), hint="leave high_precision / high_performance at False")


def gelu(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, high_precision: bool = False,
         high_performance: bool = False) -> None:
    """Ascend C `Gelu(dst, src[, sharedTmpBuffer], dataSize)`: the tanh approximation, computed in T."""
    _no_variants("gelu", high_precision, high_performance)
    record("adv_gelu", {"dst": dst}, {"src": src}, temp_buffer, count=count)


def faster_gelu(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, high_precision: bool = False,
                high_performance: bool = False) -> None:
    """Ascend C `FasterGelu(dst, src[, sharedTmpBuffer], dataSize)`: x / (1 + exp(-1.702 x)), in T."""
    _no_variants("faster_gelu", high_precision, high_performance)
    record("adv_faster_gelu", {"dst": dst}, {"src": src}, temp_buffer, count=count)


def silu(dst: Any, src: Any, count: Any = None) -> None:
    """Ascend C `Silu(dst, src, dataSize)`: x / (1 + exp(-x)), in T (no temporary buffer)."""
    record("adv_silu", {"dst": dst}, {"src": src}, count=count, tmp_form=False)


def sigmoid(dst: Any, src: Any, count: Any = None, temp_buffer: Any = None, is_reuse_source: bool = False) -> None:
    """Ascend C `Sigmoid(dst, src[, sharedTmpBuffer], calCount)`: 1 / (1 + exp(-x)), in T."""
    record("adv_sigmoid", {"dst": dst}, {"src": src}, temp_buffer, count=count)


def swiglu(dst: Any, src0: Any, src1: Any, scalar_value: Any, count: Any = None, temp_buffer: Any = None,
           is_reuse_source: bool = False) -> None:
    """Ascend C `SwiGLU(dst, src0, src1, scalarValue[, sharedTmpBuffer], calCount)`:
    src0 * src1 / (1 + exp(-scalar_value * src1)), in float."""
    record("adv_swiglu", {"dst": dst}, {"src0": src0, "src1": src1}, temp_buffer, {"scalar_value": scalar_value},
           count)


__all__ = ["softmax", "log_softmax", "gelu", "faster_gelu", "silu", "sigmoid", "swiglu"]
