"""The executor of the high-level API calls (family "adv", graph/ops/adv_common.py): check the temporary
buffer against the vendor's minimum and every operand's range before anything is written, then one
vector-pipe instruction whose effect is the call's algorithm (the vendor's steps, on NumPy)."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import config
from ..dtypes import DataType, from_compute, to_compute
from ..errors import OutOfBoundsError, UBOverflowError
from ..graph.hb import Instr, api_steps
from ..graph.node import Node, Pipe
from ..graph.ops import OpDef
from ..graph.ops.adv_common import ADV, Steps, extent, operands, run_algo, tmp_extent
from .executor_base import binder, efn, scalar_as
from .machine import Machine, UbRoot

Step = Callable[[Machine], Instr | None]


def tmp_bytes_available(m: Machine, node: Node, ref, off: Any) -> int:
    """Bytes of the temporary buffer from its start to the end of its storage (GetSize of the view)."""
    root = m.roots.get(ref.root)
    start = m.uniform_int(off, node, "the temporary buffer's offset") * ref.dtype.itemsize
    return (root.nbytes if isinstance(root, UbRoot) else 0) - start


def check_tmp(spec, node: Node, have: int, count: int) -> None:
    need = spec.min_tmp(node, count)
    if have < need:
        raise UBOverflowError(
            f"the temporary buffer of asc.adv.{node.op[4:]} holds {have} bytes; the call needs at least {need} "
            f"(the vendor's minimum for this size and type, "
            f"{spec.tmp_helper or f'asc.adv.get_{node.op[4:]}_max_min_tmp_size'})",
            node=node, hint="give a larger sharedTmpBuffer (a TBuf of at least the minimum); its maximum is the "
                            "size at which the call runs in one pass")


@binder("adv")
def _bind_adv(node: Node, op: OpDef) -> Step:
    spec = ADV[node.op]
    tens, tmp, scal, count = operands(node)
    f_off = {n: efn(r.offset) for n, r in tens.items()}
    f_ext = {n: efn(extent(node, n)) for n in tens}
    f_cnt = efn(count) if count is not None else None
    f_sc = {n: efn(v) for n, v in scal.items()}
    f_tmp = efn(tmp.offset) if tmp is not None else None
    f_tmp_n = efn(tmp_extent(node)) if tmp is not None else None
    dt: DataType = node.attr("dtype")
    sdt: DataType = node.attr("src_dtype") or dt

    def run(m: Machine) -> Instr | None:
        env = m.env
        n = m.count(f_cnt(env), node) if f_cnt is not None else m.count(f_ext[spec.outs[0]](env), node)
        if n == 0:
            return None
        views, ub = {}, []
        for name, r in tens.items():
            k = m.count(f_ext[name](env), node)
            a, v = m.ub_access(r, f_off[name](env), k, node, name)
            views[name] = v
            ub.append((a, k * r.dtype.itemsize, name in spec.outs))
        starts = {name: a for (a, _nb, _w), name in zip(ub, tens)}
        check_reuse(m, node, spec, op.c_name, tens, starts)
        check_same_size(m, node, spec, op.c_name, tens, starts)
        if tmp is not None:
            off = f_tmp(env)
            have = tmp_bytes_available(m, node, tmp, off)
            check_tmp(spec, node, have, n)
            used = min(have, m.count(f_tmp_n(env), node))
            a, _ = m.ub_access(tmp, off, used // tmp.dtype.itemsize, node, "the temporary buffer")
            for (b, nb, _w), name in zip(ub, tens):
                if a < b + nb and b < a + used:     # the vendor: tmp may not overlap a source or destination
                    raise OutOfBoundsError(f"the temporary buffer of asc.adv.{node.op[4:]} (UB bytes [{a}, "
                                           f"{a + used})) overlaps {name} (UB bytes [{b}, {b + nb}))", node=node,
                                           hint="give the call a temporary buffer of its own (a TBuf)")
            ub.append((a, used, True))
        elif m.pipe_node is not None:
            scratch = stack_scratch(m, node, spec, n)
            if scratch is not None:
                ub.append(scratch)
        sc = {k: scalar_as(_scalar_type(k, dt, sdt), f(env)) for k, f in f_sc.items()}

        def apply() -> None:
            ins = {name: to_compute(views[name], tens[name].dtype) for name in spec.ins}
            outs = run_algo(node, Steps(), n, ins, sc)
            for name, val in outs.items():
                views[name][...] = from_compute(np.asarray(val), tens[name].dtype)
        # the temporary buffer's contents are not the call's result: the vendor leaves it undefined
        return Instr(node, Pipe.V, "op", apply=apply, ub=tuple(ub), work=n,
                     api=api_steps(node, lambda _e: n))
    return run


# PopStackBuffer's end on A2 is TOTAL_UB_SIZE - sizeof(KfcMsg) (kernel_pop_stack_buffer.h GetEndAddress);
# asc_trace's usable UB ends lower (config.UB_USABLE), and nothing may live above it, so that is the end here.
STACK_END = config.UB_USABLE


def stack_scratch(m: Machine, node: Node, spec, n: int) -> tuple[int, int, bool] | None:
    """The UB a call without temp_buffer takes as its scratch: the vendor's PopStackBuffer hands it all of the
    UB after the TPipe's buffers (GetQueueEndAddress .. the end), of which the call uses at most its maximum.
    Checked before anything is written: that much room for the call's minimum, and no raw LocalTensor in the
    bytes the call will overwrite. Returned as a write of the call, so the race checker sees it."""
    most = spec.max_tmp(node, n)
    if most <= 0:            # the call needs no scratch (Silu, Swish, GeGLU on float, ...)
        return None
    start = m.pipe_next
    room = STACK_END - start
    need = spec.min_tmp(node, n)
    if room < need:
        raise UBOverflowError(f"asc.adv.{node.op[4:]} without temp_buffer takes its scratch from the UB after the "
                              f"TPipe's buffers (byte {start} on): {max(room, 0)} bytes are left, the call needs at "
                              f"least {need}", node=node,
                              hint="give the call a temp_buffer (a TBuf), or smaller TPipe buffers")
    used = min(room, most)
    for root in m.roots.values():
        if isinstance(root, UbRoot) and root.addr < start + used and start < root.addr + root.nbytes:
            raise OutOfBoundsError(f"asc.adv.{node.op[4:]} without temp_buffer overwrites UB bytes [{start}, "
                                   f"{start + used}) as its scratch (the vendor's PopStackBuffer: the UB after the "
                                   f"TPipe's buffers), and a LocalTensor lives at [{root.addr}, "
                                   f"{root.addr + root.nbytes})", node=node,
                                   hint="give the call a temp_buffer, or place raw LocalTensors inside TPipe "
                                        "buffers (a TBuf) rather than after them")
    return start, used, True


def check_reuse(m: Machine, node: Node, spec, c_name: str, tens: dict, starts: dict[str, int]) -> None:
    """The vendor's TensorReuseVerifyingParameters: two operands of a pair in spec.reuse_pairs may not be one
    tensor (the same first byte and the same size, the size of a view running to its storage's end)."""
    for a, b in spec.reuse_pairs:
        if a not in starts or b not in starts or starts[a] != starts[b]:
            continue
        ra, rb = m.roots.get(tens[a].root), m.roots.get(tens[b].root)
        if isinstance(ra, UbRoot) and isinstance(rb, UbRoot) and ra.addr + ra.nbytes == rb.addr + rb.nbytes:
            raise OutOfBoundsError(f"{a} and {b} of asc.adv.{node.op[4:]} are one tensor (UB byte {starts[a]} on, "
                                   f"{ra.addr + ra.nbytes - starts[a]} bytes): the vendor's {c_name} "
                                   "refuses to reuse it (its API check)", node=node,
                                   hint=f"give {a} a tensor of its own")


def check_same_size(m: Machine, node: Node, spec, c_name: str, tens: dict, starts: dict[str, int]) -> None:
    """The vendor's assertion that two operands have one GetSize() (a view's size: to its storage's end)."""
    def size(name: str) -> int | None:
        root = m.roots.get(tens[name].root)
        return (root.addr + root.nbytes - starts[name]) // tens[name].dtype.itemsize if isinstance(root, UbRoot) \
            else None
    for a, b in spec.same_size:
        sa, sb = size(a), size(b)
        if sa is not None and sb is not None and sa != sb:
            raise OutOfBoundsError(f"{a} holds {sa} elements and {b} {sb} (each LocalTensor's GetSize(), to the end "
                                   f"of its buffer): the vendor's {c_name} asserts they are equal", node=node,
                                   hint=f"give {a} and {b} buffers of one size (e.g. one queue each)")


def _scalar_type(name: str, dt: DataType, sdt: DataType) -> DataType:
    from ..dtypes import float32
    return float32 if name in ("scale", "offset", "scalar_value") else sdt
