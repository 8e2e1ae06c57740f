"""pyasc's MIX mode for a kernel that registers an `asc.adv.Matmul` without `matmul_cube_only=True`: the
vendor's Matmul then runs as a client on each of the two vector cores of an AI core, the cube core serving
their requests (pyasc's LegalizeKernelArgs pass and compiler.py: a kernel with REGIST_MATMUL_OBJ is
KERNEL_TYPE_MIX_AIC_1_2 unless matmul_cube_only). So the kernel's code runs 2 x blocks times: `GetBlockIdx()`
is `block * 2 + sub-block` (0 .. 2 x blocks - 1) while `GetBlockNum()` is still the launched count (the vendor's
dav_c220 kernel_operator_sys_var_impl.h: GetBlockIdxImpl, and GetBlockNum = get_block_num()).

asc_trace expands the Matmul into the cube's own instructions, so each client's requests are the cube work
the kernel records with that client's block id. A kernel whose work is all the Matmul's (tutorial 03) runs
as its equivalent cube kernel on 2 x blocks cube cores (one with no cube work: its vector code on 2 x blocks
vector cores), with `GetBlockNum()` read as half of that: the same block ids, block count and results as the
vendor's MIX launch; the emitted Ascend C is that kernel (correct when launched on 2 x blocks). A kernel with
cube and vector work (C into the Unified Buffer, tutorial 05) runs on sim as 2 x blocks pairs of one cube
core and one vector core (runtime/mix_sim.py). Not the same: timing (two clients share one cube core on the
NPU; here each has its own), so asc.profile refuses these kernels."""
from __future__ import annotations

import dataclasses
from typing import Any

from .expr import BLOCK_NUM, Const, binop, free_vars
from .kernel_graph import KernelGraph
from .mix_vars import side_values

CLIENTS_PER_BLOCK = 2        # KERNEL_TYPE_MIX_AIC_1_2: one Matmul client per vector core, two per AI core


def clients_per_block(traced: KernelGraph, options: Any) -> int:
    """2 for a kernel in pyasc's MIX Matmul mode (it registers a Matmul, and is not declared cube-only), else 1."""
    if getattr(traced, "matmul_client", None) is None:
        return 1
    kt = options.get("kernel_type")
    if options.get("matmul_cube_only") or kt in ("cube", "aic", "KERNEL_TYPE_AIC_ONLY"):
        return 1
    return CLIENTS_PER_BLOCK


def as_client_kernel(traced: KernelGraph) -> KernelGraph:
    """The kernel as traced, run on 2 x blocks cores: `GetBlockNum()` becomes the launched count (half). A kernel
    with no cube work (a Matmul built and never run) is the clients' vector code alone: 2 x blocks vector cores."""
    loc = traced.matmul_client
    # the kernel's code is the clients' (vector cores'): GetSubBlockIdx() is the client's id % 2, GetSubBlockNum()
    # and GetTaskRation() 2, on both sides of the pairing (the cube core works on the client's behalf)
    values = {BLOCK_NUM: binop("//", BLOCK_NUM, Const(CLIENTS_PER_BLOCK)), **side_values("aiv")}
    out = traced.copy()
    for nid in traced.order:
        n = traced.node(nid)
        if _uses(n.args, values):
            out.replace(dataclasses.replace(n, args=_subst(n.args, values)))
    out.matmul_client = loc
    return out


def _uses(args: Any, values: dict) -> bool:
    from .node import exprs_in
    return any(v in values for e in exprs_in(args) for v in free_vars(e))


def _subst(args: Any, m: dict) -> Any:
    from .mix_split import _subst_arg
    return _subst_arg(args, m)
