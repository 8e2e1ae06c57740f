"""The executor of Fixpipe L0C -> L1 (graph/ops/cube.py `fixpipe_l1`; proxies/cube_fixpipe_l1.py): each
16-column block of the m x n result lands as m rows of 32 bytes in L1's Nz layout, `dst_stride` rows after
the previous block (FX:340-349: the 910B counts dst_stride in 32-byte units), converted float32 -> float16 /
bfloat16 with round-to-nearest-even and ReLU as on the way to GM."""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np

from ..dtypes import from_compute
from ..errors import AlignmentError
from ..graph.hb import Instr
from ..graph.node import Node, Pipe
from . import cube_timing as T
from .cube_exec import Operand, _compile_params, _params, check_l0c_written, cube_binder
from .machine import Machine


@lru_cache(maxsize=256)
def _index(M: int, N: int, ss: int, ds: int) -> tuple:
    """(L0C elements, L1 elements, L0C [lo, hi), L1 [lo, hi)) of a Fixpipe into L1's Nz layout."""
    r = np.arange(M)[:, None]
    col = np.arange(N)[None, :]
    sidx = (col // 16) * ss * 16 + r * 16 + col % 16
    didx = (col // 16) * ds * 16 + r * 16 + col % 16
    return sidx, didx, int(sidx.min()), int(sidx.max()) + 1, int(didx.min()), int(didx.max()) + 1


@cube_binder("fixpipe_l1")
def bind_fixpipe_l1(node: Node) -> Callable[[Machine], Any]:
    dst_r, src_r, p = node.args
    dst, src = Operand(dst_r, "dst of asc.fixpipe"), Operand(src_r, "src of asc.fixpipe")
    fs = _compile_params(p)
    ddt = dst_r.dtype

    def run(m: Machine) -> Instr | None:
        q = _params(p, m, node, fs)
        M, N, ss, ds = q["m_size"], q["n_size"], q["src_stride"], q["dst_stride"]
        if M == 0 or N == 0:
            return None
        if N % 16:
            raise AlignmentError(f"a Fixpipe into L1 moves whole 16-column blocks; n_size is {N}", node=node)
        sroot, soff = src.at(m, node, 64)
        droot, doff = dst.at(m, node, 32)
        sidx, didx, s_lo, s_hi, d_lo, d_hi = _index(M, N, ss, ds)
        src.span(m, node, sroot, soff, s_hi - 1)
        check_l0c_written(m, node, sroot.addr, soff, sidx)
        dst.span(m, node, droot, doff, d_hi - 1)
        sv, dv = src.elems(m, sroot), dst.elems(m, droot)
        relu = bool(q["relu_en"])

        def apply() -> None:
            v = sv[soff + sidx]
            if relu:
                v = np.maximum(v, v.dtype.type(0))
            dv[doff + didx] = from_compute(v.astype(np.float32), ddt)
        acc = (src.key(sroot, soff, s_lo, s_hi, False), dst.key(droot, doff, d_lo, d_hi, True))
        uf = q["unit_flag"]
        key = ("uf", sroot.addr + soff * 4, 1, uf == 3) if uf in (2, 3) else None
        return Instr(node, Pipe.FIX, "op", key=key, apply=apply, ub=acc, work=T.fixpipe(M, N))
    return run
