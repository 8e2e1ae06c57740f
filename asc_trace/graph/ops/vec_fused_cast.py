"""The fused convert ops and the dequantisation register (pyasc `asc.language.basic.vec_vconv` / `vec_binary`):

- `AddReluCast / SubReluCast(dst, src0, src1, count)`: dst = Cast(Relu(src0 +/- src1)); A2 pairs (src -> dst)
  half -> int8, float -> half, int16 -> int8 (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_vconv_impl.h
  SupportType<Tuple<U, T>, ...>).
- `MulCast(dst, src0, src1, count)`: dst = Cast(src0 * src1), half -> int8 / uint8 (kernel_operator_vec_mulcast_impl.h).
- `AddDeqRelu(dst, src0, src1, count)`: int32 + int32, dequantised by the deq-scale register, Relu, to half.
- `CastDeq(dst, src, count)` <isVecDeq, halfBlock>: int16 -> int8 / uint8 by the deq-scale register (or the vdeq
  tensor), each result in half of a 32-byte block (halfBlock). asc-devkit also takes int32 -> half (Cast with
  CAST_RINT), CANN 8.1.RC1 does not: asc.cast(dst, src, RoundMode.CAST_RINT, count) says the same everywhere.
- `SetDeqScale(half)` / `(float scale, int16 offset, bool signMode)` / `(LocalTensor<uint64> vdeq, VdeqInfo)`:
  sets that register (the tensor form first writes 16 packed configs into vdeq with the scalar unit).

Each has a mask form too `(..., mask, repeatTime, Binary/UnaryRepeatParams)`, a repeat being 256 bytes of the
source. asc_trace traces them, checks their operands and emits them, but runs none: the conversions inside these
instructions (vaddreluconv, vmulconv, vconv_deq) are hardware intrinsics whose rounding, saturation and
half-block placement the vendor's headers do not define, so no backend can give their exact bytes. A launch of a
kernel using one is a NotProvidedError (`NOT_EXECUTED`) on every backend, never an invented answer.
"""
from __future__ import annotations

from ...dtypes import float16, float32
from ..expr import Const, binop
from ..node import Pipe
from .masked import BINARY_MASK_EMIT, envelope, last_lane, strides
from .opdef import BINARY_LIKE, NA, UNARY_LIKE, VALUES_ALL, OpDef, register

# op -> why it is traced and emitted but not run
NOT_EXECUTED: dict[str, str] = {}

# (src, dst) pairs A2 accepts
RELU_CAST_PAIRS = frozenset({("float16", "int8"), ("float32", "float16"), ("int16", "int8")})
MUL_CAST_PAIRS = frozenset({("float16", "int8"), ("float16", "uint8")})
ADD_DEQ_RELU_PAIRS = frozenset({("int32", "float16")})
# int32 -> half too in asc-devkit, where it is Cast with CAST_RINT; CANN 8.1.RC1's CastDeq has no such branch
CAST_DEQ_PAIRS = frozenset({("int16", "int8"), ("int16", "uint8")})
PAIRS = {"add_relu_cast": RELU_CAST_PAIRS, "sub_relu_cast": RELU_CAST_PAIRS, "mul_cast": MUL_CAST_PAIRS,
         "add_deq_relu": ADD_DEQ_RELU_PAIRS, "cast_deq": CAST_DEQ_PAIRS}

_D = "include/basic_api/"
_C = "interface/"
_NO_CPP = NA("not run on any backend: the conversion inside the instruction is not defined by the vendor's headers")


def _fused(name: str, c_name: str, why: str, declared: dict) -> OpDef:
    NOT_EXECUTED[name] = why
    return OpDef(name, "vec_fused_cast", Pipe.V, c_name, arity=2, cost=BINARY_LIKE,
                 emit=f"AscendC::{c_name}({{dst}}, {{src0}}, {{src1}}, {{count}});", emit_fields=_count_fields,
                 emit_mask=BINARY_MASK_EMIT.replace("{c}", c_name), cpp_model=_NO_CPP, printer="dst", writes=(0,),
                 declared=declared)


def _count_fields(ctx, n) -> dict[str, str]:
    a = n.args
    return {"dst": ctx.ref(a[0]), "src0": ctx.ref(a[1]), "src1": ctx.ref(a[2]),
            "count": ctx.cast(a[3], "int32_t" if n.op == "add_deq_relu" else "uint32_t")}


# -- CastDeq: its own accesses (halfBlock puts each 8-bit result in half of a 32-byte block) --------------

def _deq_dst_elems(node, n):
    """dst elements CastDeq may write for `n` source elements: for int16 sources each 8-bit result takes a
    16-bit slot (the half block it is written to, the other half left as it was); for int32 -> half one each."""
    return binop("*", n, Const(2)) if node.args[1].dtype.itemsize == 2 else n


def _cast_deq_accesses(node) -> list:
    d, s = node.args[:2]
    if not node.attr("mask_form"):
        n = node.args[2]
        return [(d, Const(0), _deq_dst_elems(node, n), True), (s, Const(0), n, False)]
    mask, repeat = node.args[2], node.args[3]
    per = 256 // s.dtype.itemsize
    last = last_lane(mask, per)
    last = per - 1 if last is None else last
    (dblk, drep), (sblk, srep) = strides(node)
    # dst blocks are counted as the source's (a 16-bit slot per result), so its envelope is the source's
    dst_n = envelope(s.dtype, repeat, dblk, drep, last)
    return [(d, Const(0), binop("*", dst_n, Const(s.dtype.itemsize // d.dtype.itemsize)), True),
            (s, Const(0), envelope(s.dtype, repeat, sblk, srep, last), False)]


def _cast_deq_emit(ctx, n) -> str:
    """CastDeq<T, U, isVecDeq, halfBlock>(dst, src, count), or <T, U, isSetMask, isVecDeq, halfBlock>(dst, src, mask,
    repeatTime, UnaryRepeatParams): the flags are template arguments, so the types are spelled out."""
    a = n.args
    d, s = a[0], a[1]
    flags = ", ".join("true" if n.attr(k) else "false" for k in ("is_vec_deq", "half_block"))
    if not n.attr("mask_form"):
        return (f"AscendC::CastDeq<{d.dtype.c_name}, {s.dtype.c_name}, {flags}>({ctx.ref(d)}, {ctx.ref(s)}, "
                f"{ctx.cast(a[2], 'uint32_t')});")
    p = a[4]
    casts = ("uint16_t", "uint16_t", "uint8_t", "uint8_t")
    params = ", ".join(ctx.cast(getattr(p, f), c) for f, c in
                       zip(("dst_blk_stride", "src_blk_stride", "dst_rep_stride", "src_rep_stride"), casts))
    return (f"AscendC::CastDeq<{d.dtype.c_name}, {s.dtype.c_name}, true, {flags}>({ctx.ref(d)}, {ctx.ref(s)}, "
            f"{ctx.mask(n, a[2], const=True)}, {ctx.cast(a[3], 'uint8_t')}, AscendC::UnaryRepeatParams({params}));")


# -- SetDeqScale ------------------------------------------------------------------------------------------

def _set_deq_accesses(node) -> list:
    """The tensor form writes the 16 packed configs into vdeq (uint64) with the scalar unit."""
    if node.attr("form") != "vdeq":
        return []
    return [(node.args[0], Const(0), Const(16), True)]


def _c_list(values, fmt) -> str:
    return "{" + ", ".join(fmt(v) for v in values) + "}"


def _set_deq_emit(ctx, n) -> str:
    form = n.attr("form")
    a = n.args
    if form == "half":
        return f"AscendC::SetDeqScale({ctx.scalar(a[0], float16)});"
    if form == "float":
        return (f"AscendC::SetDeqScale({ctx.scalar(a[0], float32)}, {ctx.cast(a[1], 'int16_t')}, "
                f"{'true' if a[2] else 'false'});")
    info = a[1]
    base = f"asct_vdeq{n.id}"
    ctx.pre.append(f"const float {base}_scale[16] = {_c_list(info.scale, lambda v: repr(float(v)) + 'f')};")
    ctx.pre.append(f"const int16_t {base}_offset[16] = {_c_list(info.offset, str)};")
    ctx.pre.append(f"const bool {base}_sign[16] = {_c_list(info.sign_mode, lambda v: 'true' if v else 'false')};")
    return (f"AscendC::SetDeqScale({ctx.ref(a[0])}, AscendC::VdeqInfo({base}_scale, {base}_offset, "
            f"{base}_sign));")



_WHY_CONV = ("the conversion inside the fused instruction ({c}) is a hardware intrinsic whose rounding and "
             "saturation the vendor's headers do not define")
_WHY_DEQ = ("the dequantisation (vconv_deq / the deq-scale register) is a hardware intrinsic whose arithmetic the "
            "vendor's headers do not define")

NOT_EXECUTED["cast_deq"] = _WHY_DEQ
NOT_EXECUTED["set_deq_scale"] = ("it only feeds the dequantising ops (asc.cast_deq, asc.add_deq_relu), which are "
                                 "not run: " + _WHY_DEQ)

register(
    _fused("add_relu_cast", "AddReluCast", _WHY_CONV.format(c="vaddreluconv"),
           {"AddReluCast/4": (f"{_D}kernel_operator_vec_vconv_intf.h:180", f"{_C}kernel_operator_vec_vconv_intf.h:149"),
            "AddReluCast/6": (f"{_D}kernel_operator_vec_vconv_intf.h:159", f"{_C}kernel_operator_vec_vconv_intf.h:131")}),
    _fused("sub_relu_cast", "SubReluCast", _WHY_CONV.format(c="vsubreluconv"),
           {"SubReluCast/4": (f"{_D}kernel_operator_vec_vconv_intf.h:226", f"{_C}kernel_operator_vec_vconv_intf.h:190"),
            "SubReluCast/6": (f"{_D}kernel_operator_vec_vconv_intf.h:205", f"{_C}kernel_operator_vec_vconv_intf.h:172")}),
    _fused("mul_cast", "MulCast", _WHY_CONV.format(c="vmulconv"),
           {"MulCast/4": (f"{_D}kernel_operator_vec_mulcast_intf.h:52", f"{_C}kernel_operator_vec_mulcast_intf.h:41"),
            "MulCast/6": (f"{_D}kernel_operator_vec_mulcast_intf.h:41", f"{_C}kernel_operator_vec_mulcast_intf.h:32")}),
    _fused("add_deq_relu", "AddDeqRelu", _WHY_DEQ,
           {"AddDeqRelu/4": (f"{_D}kernel_operator_vec_binary_intf.h:566", f"{_C}kernel_operator_vec_binary_intf.h:488"),
            "AddDeqRelu/6": (f"{_D}kernel_operator_vec_binary_intf.h:532", f"{_C}kernel_operator_vec_binary_intf.h:462")}),
    OpDef("cast_deq", "vec_cast_deq", Pipe.V, "CastDeq", arity=1, cost=UNARY_LIKE, emit=_cast_deq_emit,
          cpp_model=_NO_CPP, printer="dst", writes=(0,), accesses=_cast_deq_accesses,
          declared={"CastDeq<>/3": (f"{_D}kernel_operator_vec_vconv_intf.h:135", f"{_C}kernel_operator_vec_vconv_intf.h:108"),
                    "CastDeq<>/5": (f"{_D}kernel_operator_vec_vconv_intf.h:112", f"{_C}kernel_operator_vec_vconv_intf.h:93")}),
    OpDef("set_deq_scale", "deq_scale", Pipe.S, "SetDeqScale", emit=_set_deq_emit, cpp_model=_NO_CPP,
          writes=(0,), reads=(), accesses=_set_deq_accesses, values=VALUES_ALL,
          declared={"SetDeqScale/1": (f"{_D}kernel_operator_vec_vconv_intf.h:230", f"{_C}kernel_operator_vec_vconv_intf.h:194"),
                    "SetDeqScale/3": (f"{_D}kernel_operator_vec_vconv_intf.h:232", f"{_C}kernel_operator_vec_vconv_intf.h:196"),
                    "SetDeqScale/2": (f"{_D}kernel_operator_vec_vconv_intf.h:235", f"{_C}kernel_operator_vec_vconv_intf.h:199"),
                    "VdeqInfo/3": (f"{_D}kernel_struct_vdeq.h:40", f"{_C}kernel_struct_vdeq.h:28")}),
)
