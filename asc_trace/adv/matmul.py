"""pyasc's high-level Matmul (`asc.adv.Matmul`, `asc.adv.register_matmul`): C = A x B (+ bias) on the cube.

A Matmul is built on the basic cube API: `iterate_all` expands while tracing into data_copy (Nd2Nz), load_data,
mmad and fixpipe records (adv/matmul_expand.py), so auto_sync derives its flags, the simulator runs it on bytes
in the fractal layouts, and the timing model and the emitted Ascend C see the instructions themselves.

Provided: A, B, C and the bias in GM, ND; A given M x K; B given K x N (16-bit types) or transposed (N x K, any
type Mmad takes); C float32 / float16 / bfloat16 from float inputs, int32 from int8; the tiling from
`register_matmul(..., tiling)` or `init(tiling)`; `set_tail`, `set_org_shape`, `set_single_shape`; `iterate_all`
to a GlobalTensor; the per-block loop (`with matmul.iterate() as count:` / `while matmul.iterate():` with
`get_tensor_c` to a GlobalTensor, or to a LocalTensor through the workspace in pyasc's MIX mode); `end`. What is
not (batches, quantisation, sparse A) raises NotProvidedError at its line.
"""
from __future__ import annotations

from typing import Any

from ..cube_enums import CubeFormat
from ..enums import TPosition
from ..errors import NotProvidedError, TraceError
from ..graph.ops.cube import MMAD_DTYPES
from ..proxies.context import current
from ..proxies.scalar import Scalar
from ..proxies.source_loc import user_loc
from . import matmul_expand as X
from .matmul_types import MatmulConfig, MatmulType, TCubeTiling


def _gm_tensor(t: Any, what: str) -> Any:
    if type(t).__name__ != "GlobalTensor" or getattr(t, "_ref", None) is None:
        raise TraceError(f"{what} takes a bound asc.GlobalTensor, got {type(t).__name__}", user_loc(),
                         hint="g = asc.GlobalTensor(); g.set_global_buffer(addr)")
    return t


def _not_provided(api: str, why: str, instead: str | None = None) -> NotProvidedError:
    return NotProvidedError(f"asc.adv.Matmul.{api} is not provided: {why}", user_loc(), hint=instead)


_UB_C = ("C takes GM, or the Unified Buffer (VECCALC / VECIN / VECOUT) through get_tensor_c",
         "MatmulType(TPosition.GM, ...) or MatmulType(TPosition.VECCALC, ...)")
_UB_POSITIONS = (TPosition.VECCALC, TPosition.VECIN, TPosition.VECOUT)
_ITERATE = ("the asynchronous GetTensorC is not provided", "matmul.get_tensor_c(c_global) in the iterate() loop")


class Matmul:
    """`asc.adv.Matmul(a, b, c, bias=None, matmul_config=None, matmul_policy=0)`: the operands' MatmulTypes."""

    def __init__(self, a: MatmulType | None = None, b: MatmulType | None = None, c: MatmulType | None = None,
                 bias: MatmulType | None = None, matmul_config: MatmulConfig | None = None,
                 matmul_policy: Any = 0) -> None:
        ctx = current("asc.adv.Matmul")
        loc = user_loc()
        graph = getattr(ctx, "graph", None)
        if graph is not None and getattr(graph, "matmul_client", None) is None:
            graph.matmul_client = loc      # pyasc's MIX mode unless cube-only (graph/matmul_clients.py)
        for what, t in (("a", a), ("b", b), ("c", c)):
            if not isinstance(t, MatmulType):
                raise TraceError(f"asc.adv.Matmul: {what} is an asc.adv.MatmulType, got {type(t).__name__}", loc)
        if bias is not None and not isinstance(bias, MatmulType):
            raise TraceError(f"asc.adv.Matmul: bias is an asc.adv.MatmulType, got {type(bias).__name__}", loc)
        if a.dtype is not b.dtype:
            raise TraceError(f"asc.adv.Matmul: A is {a.dtype} but B is {b.dtype}; the cube multiplies equal types", loc)
        acc = "int32" if a.dtype.name == "int8" else "float32"
        if (acc, a.dtype.name, b.dtype.name) not in MMAD_DTYPES:
            from ..errors import DTypeError
            raise DTypeError(f"asc.adv.Matmul of {a.dtype} x {b.dtype}: the cube's Mmad takes half, bfloat16, float "
                             "and int8 inputs", loc)
        self.a_type, self.b_type, self.c_type, self.bias_type = a, b, c, bias
        self.config = matmul_config if matmul_config is not None else MatmulConfig()
        self.policy = matmul_policy
        self.c_dtype, self.a_dtype, self.b_dtype = c.dtype, a.dtype, b.dtype
        self._tiling: TCubeTiling | None = None
        self._registered = False
        self._ended = False
        self._a = self._b = self._bias = None
        self._trans_a, self._trans_b = a.is_trans, b.is_trans
        self._org: dict[str, Any] = {}
        self._single: dict[str, Any] = {}
        self._tail: dict[str, Any] = {}
        self._cur: tuple | None = None         # the block the last iterate() computed (get_tensor_c reads it)
        self._unrolled: tuple | None = None    # `while matmul.iterate():` on eager: (state, the blocks loop)
        self._open: Any = None                 # `while matmul.iterate():` while tracing: the open loop region
        self._workspace: Any = None            # register_matmul's workspace (C's hand-off to the UB goes through it)
        self._ws_tensor: Any = None

    # -- setup ------------------------------------------------------------------------------------------

    def init(self, tiling: TCubeTiling) -> None:
        """`Init(tiling)`: the TCubeTiling this Matmul follows."""
        if not isinstance(tiling, TCubeTiling):
            raise TraceError(f"Matmul.init takes an asc.adv.TCubeTiling, got {type(tiling).__name__}", user_loc())
        self._tiling = tiling

    def end(self) -> None:
        """`End()`: the Matmul is finished; it records no instruction (auto_sync orders what it wrote)."""
        self._ended = True

    def set_tensor_a(self, tensor: Any, transpose: bool = False) -> None:
        if isinstance(tensor, (int, float, Scalar)):
            raise _not_provided("set_tensor_a(scalar)", "A as one broadcast scalar is not provided yet")
        self._a = _gm_tensor(tensor, "Matmul.set_tensor_a")
        self._trans_a = bool(transpose)

    def set_tensor_b(self, tensor: Any, transpose: bool = False) -> None:
        if isinstance(tensor, (int, float, Scalar)):
            raise _not_provided("set_tensor_b(scalar)", "B as one broadcast scalar is not provided yet")
        self._b = _gm_tensor(tensor, "Matmul.set_tensor_b")
        self._trans_b = bool(transpose)

    def set_bias(self, tensor: Any) -> None:
        if type(tensor).__name__ != "GlobalTensor":
            raise _not_provided("set_bias(LocalTensor)", "a bias in the Unified Buffer is not provided yet",
                                "give the bias in GM")
        self._bias = _gm_tensor(tensor, "Matmul.set_bias")

    def disable_bias(self) -> None:
        self._bias = None

    def set_tail(self, tail_m: Any = -1, tail_n: Any = -1, tail_k: Any = -1) -> None:
        """`SetTail(tailM, tailN, tailK)`: this core's block is smaller than single_core_m / n / k (-1: unchanged)."""
        for k, v in (("m", tail_m), ("n", tail_n), ("k", tail_k)):
            if not (isinstance(v, int) and v == -1):
                self._tail[k] = v

    def set_org_shape(self, org_m: Any, org_n: Any, org_ka: Any, org_kb: Any = None, org_kc: Any = None) -> None:
        """`SetOrgShape(M, N, Ka[, Kb[, Kc]])`: the whole matrices' shapes (their row pitches in GM)."""
        self._org.update(m=org_m, n=org_n, k_a=org_ka, k_b=org_ka if org_kb is None else org_kb)

    def set_single_shape(self, single_m: Any, single_n: Any, single_k: Any) -> None:
        self._single.update(m=single_m, n=single_n, k=single_k)

    def set_hf32(self, enable_hf32: Any = False, trans_mode: Any = 0) -> None:
        if enable_hf32:
            raise _not_provided("set_hf32(True)", "the HF32 mode (float inputs rounded to 19 bits) is not modelled")

    # -- compute ----------------------------------------------------------------------------------------

    def iterate_all(self, tensor: Any, en_atomic: Any = 0, sync: Any = True, en_sequential_write: Any = None,
                    wait_iterate_all: Any = None, fake_msg: Any = None) -> None:
        """`IterateAll(c)`: this core's whole single_m x single_n block of C = A x B (+ bias) into `tensor` (GM)."""
        loc = user_loc()
        current("asc.adv.Matmul.iterate_all")
        if type(tensor).__name__ != "GlobalTensor":
            raise _not_provided("iterate_all to a LocalTensor", "C in the Unified Buffer makes a mixed cube + vector "
                                "kernel, which this Matmul does not build", "iterate_all to a GlobalTensor")
        gc = _gm_tensor(tensor, "Matmul.iterate_all")
        if en_atomic not in (0, False):
            raise _not_provided("iterate_all(en_atomic=...)", "GM atomics are not provided")
        self._check_ready(loc)
        plan, in_dt = self._plan(loc)
        X.iterate_all(plan, self._a, self._b, gc, self._bias, in_dt, self.c_dtype, loc)

    def wait_iterate_all(self) -> None:
        """`WaitIterateAll()`: the expansion is in program order; auto_sync orders what reads C afterwards."""

    def iterate(self, en_partial_sum: Any = False, sync: Any = True, local_c_matrix: Any = None) -> "MatmulIterator":
        """`Iterate()`: the next base_m x base_n block of C (m fastest, the tiling's ORDER_M) into L0C; fetch it
        with `get_tensor_c`. Two forms: `with matmul.iterate() as count:` (pyasc's: a runtime loop over the
        blocks, `count` the block's index) and `while matmul.iterate():` (the block count must be known while
        tracing: the loop is unrolled).

        Raises:
            NotProvidedError: `en_partial_sum`, `local_c_matrix`, `sync=False`.
        """
        current("asc.adv.Matmul.iterate")
        if en_partial_sum not in (False, 0):
            raise _not_provided("iterate(en_partial_sum=True)", "the partial-sum mode (K split over calls) is not "
                                "provided")
        if local_c_matrix is not None:
            raise _not_provided("iterate(local_c_matrix=...)", "a user-given L0C tensor is not provided")
        if sync not in (True, 1):
            raise _not_provided("iterate(sync=False)", "the asynchronous Iterate is not provided")
        return MatmulIterator(self, user_loc())

    def get_tensor_c(self, tensor: Any = None, en_atomic: Any = 0, en_sequential_write: Any = False, sync: Any = True,
                     optional_tensor: Any = None) -> None:
        """`GetTensorC(c)`: the block the last `iterate()` computed, from L0C into `tensor` (GM): at its place in
        C (row pitch: the org N), or with `en_sequential_write=True` at the start of `tensor`, rows cur_n apart
        (the vendor's copy_cube_out_fixpipe.h: stride = baseWidth, dstOffset = 0).

        Raises:
            TraceError: not inside an iterate() loop.
            NotProvidedError: C into the Unified Buffer (a LocalTensor), the returning form, en_atomic.
        """
        current("asc.adv.Matmul.get_tensor_c")
        loc = user_loc()
        if tensor is None:
            raise _not_provided("get_tensor_c() returning a GlobalTensor", "the workspace form (sync=False) is not "
                                "provided", "pass the destination: matmul.get_tensor_c(c_global)")
        if optional_tensor is not None:
            raise _not_provided("get_tensor_c(c_global, optional_tensor=local)", "C into GM and the Unified Buffer "
                                "at once is not provided", "two calls: get_tensor_c(c_global), then a data_copy")
        if en_atomic not in (0, False):
            raise _not_provided("get_tensor_c(en_atomic=...)", "GM atomics are not provided")
        cur = self._cur
        if cur is None:
            raise TraceError("get_tensor_c fetches the block the last iterate() computed: call it inside "
                             "`with matmul.iterate() as count:` or `while matmul.iterate():`", loc)
        plan, c_l0, row, col, cur_m, cur_n, quant = cur
        from ..proxies import cube_api as C
        from ..proxies.cube_params import FixpipeParamsV220
        from ..proxies.tensors import LocalTensor
        if isinstance(tensor, LocalTensor):      # LocalTensorAuto too (pyasc's insert_sync kernels)
            self._to_ub(tensor, en_sequential_write, loc)
            return
        gc = _gm_tensor(tensor, "Matmul.get_tensor_c")
        if en_sequential_write:
            C.fixpipe(gc, c_l0, FixpipeParamsV220(cur_n, cur_m, X.up(cur_m, 16), cur_n, quant))
        else:
            C.fixpipe(gc[row * plan.ldc + col:], c_l0, FixpipeParamsV220(cur_n, cur_m, X.up(cur_m, 16), plan.ldc,
                                                                         quant))

    def _to_ub(self, ub: Any, sequential: Any, loc: Any) -> None:
        """The block into the Unified Buffer, as pyasc's MIX mode hands it over: the cube core fixpipes it into
        this client's slot of the registered workspace (GM: A2 has no L0C -> UB path), the vector core copies
        it into `ub`, rows base_n apart; auto_sync derives the cross-core flags from that dataflow."""
        plan, c_l0, _row, _col, cur_m, cur_n, quant = self._cur
        opts = getattr(getattr(current("asc.adv.Matmul.get_tensor_c"), "graph", None), "options", None) or {}
        if opts.get("matmul_cube_only") or opts.get("kernel_type") in ("cube", "aic", "KERNEL_TYPE_AIC_ONLY"):
            raise TraceError("get_tensor_c into a LocalTensor in a cube-only kernel: the cube core has no Unified "
                             "Buffer", loc, hint="drop matmul_cube_only (pyasc's MIX mode hands C to the vector "
                                                 "cores), or get_tensor_c into GM")
        if not sequential:
            raise _not_provided("get_tensor_c(local_tensor, en_sequential_write=False)", "the block at its place in "
                                "a local C of the whole core's block is not provided",
                                "en_sequential_write=True: the block at the start of the LocalTensor, as tutorial 05")
        if ub.dtype is not self.c_dtype:
            raise TraceError(f"get_tensor_c into a {ub.dtype} LocalTensor, but C is {self.c_dtype}", loc)
        sz = self.c_dtype.itemsize
        if plan.bn * sz % 32:
            raise _not_provided(f"get_tensor_c to a LocalTensor with base_n = {plan.bn}", "a block row that is not "
                                "whole 32-byte blocks (the UB copy's unit)")
        ws = self._handoff(plan, loc)
        from ..proxies import cube_api as C
        from ..proxies.api import data_copy, get_block_idx
        from ..proxies.cube_params import FixpipeParamsV220
        from ..proxies.params import DataCopyParams
        slot = ws[get_block_idx() * (plan.bm * plan.bn):]      # this client's block of the workspace
        C.fixpipe(slot, c_l0, FixpipeParamsV220(cur_n, cur_m, X.up(cur_m, 16), plan.bn, quant))
        data_copy(ub, slot, DataCopyParams(cur_m, plan.bn * sz // 32, 0, 0))

    def _handoff(self, plan: Any, loc: Any) -> Any:
        """The registered workspace as a GlobalTensor of C's type (bound once per Matmul)."""
        if self._ws_tensor is not None:
            return self._ws_tensor
        ws = self._workspace
        if type(ws).__name__ != "GlobalAddress":
            raise _not_provided("get_tensor_c to a LocalTensor with this workspace", "the hand-off needs the "
                                "workspace as a GlobalAddress kernel parameter, as pyasc's tutorials pass it")
        from ..graph.expr import Const
        if not (isinstance(ws.offset, Const) and ws.offset.value == 0):
            raise _not_provided("get_tensor_c to a LocalTensor with an offset workspace", "the workspace is seen in "
                                "C's element type from its start", "register the workspace argument itself")
        from ..proxies.tensors import GlobalAddress, GlobalTensor
        g = GlobalTensor()
        g.set_global_buffer(GlobalAddress(ws.param, ws.offset, self.c_dtype))
        self._ws_tensor = g
        return g

    def _begin_iterate(self, loc: Any) -> tuple:
        """The buffers and the block count of an iterate() loop."""
        self._check_ready(loc)
        plan, in_dt = self._plan(loc)
        quant = X.out_quant(plan, in_dt, self.c_dtype, loc)
        buf = X.Buffers(plan, in_dt, self._bias is not None, loc)
        m_tiles, n_tiles = X.tile_counts(plan)
        return plan, quant, buf, buf.c1(self.c_dtype), m_tiles, n_tiles

    def _compute(self, state: tuple, t: Any) -> None:
        """Block `t` of the iteration order into L0C; `get_tensor_c` then reads `self._cur`."""
        plan, quant, buf, c_all, m_tiles, _n = state
        row, col, cur_m, cur_n = X.tile_at(plan, t, m_tiles)
        c_l0 = X.l0c_slot(buf, c_all, t)
        X.compute_tile(plan, buf, self._a, self._b, self._bias, c_l0, row, col, cur_m, cur_n)
        self._cur = (plan, c_l0, row, col, cur_m, cur_n, quant)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _ABSENT:
            raise _not_provided(name, _ABSENT[name])
        raise AttributeError(f"asc.adv.Matmul has no method {name!r}")

    # -- checks -----------------------------------------------------------------------------------------

    def _check_ready(self, loc: Any) -> None:
        for what, t in (("A", self.a_type), ("B", self.b_type), ("C", self.c_type)):
            if what == "C" and TPosition(t.position) in _UB_POSITIONS and CubeFormat(t.format) == CubeFormat.ND:
                continue           # C through the workspace into the Unified Buffer: get_tensor_c(local_tensor)
            if TPosition(t.position) != TPosition.GM or CubeFormat(t.format) != CubeFormat.ND:
                raise NotProvidedError(f"asc.adv.Matmul with {what} at TPosition.{TPosition(t.position).name}, "
                                       f"CubeFormat.{CubeFormat(t.format).name} is not provided (GM, ND is)", loc,
                                       hint=_UB_C[1] if what == "C" else None)
        if not self._registered:
            raise TraceError("this Matmul was not registered: call asc.adv.register_matmul(pipe, workspace, matmul"
                             "[, tiling]) first", loc)
        if self._ended:
            raise TraceError("this Matmul was ended (matmul.end()); build a new one", loc)
        if self._tiling is None:
            raise TraceError("this Matmul has no tiling: pass it to register_matmul or call matmul.init(tiling)", loc)
        if self._a is None or self._b is None:
            raise TraceError("set A and B first: matmul.set_tensor_a(a_global), matmul.set_tensor_b(b_global)", loc)
        bad = self.config.result_changing()
        if bad:
            raise NotProvidedError(f"asc.adv.Matmul with MatmulConfig.{bad[0]} is not provided", loc)
        if self._trans_a:
            raise NotProvidedError("asc.adv.Matmul with A given transposed (K x M) is not provided yet", loc,
                                   hint="give A as M x K")

    def _plan(self, loc: Any) -> tuple[X.Plan, Any]:
        t = self._tiling
        org = {"m": t.m, "n": t.n, "k_a": t.k_a, "k_b": t.k_b, **self._org}
        single = {"m": t.single_core_m, "n": t.single_core_n, "k": t.single_core_k, **self._single, **self._tail}
        bm = X._static(t.base_m, "TCubeTiling.base_m", loc)
        bn = X._static(t.base_n, "TCubeTiling.base_n", loc)
        bk = X._static(t.base_k, "TCubeTiling.base_k", loc)
        sk = X._static(single["k"], "the core's K (single_core_k, or set_tail's tail_k)", loc)
        in_dt = self.a_dtype
        c0 = 32 // in_dt.itemsize
        for what, v, mult in (("base_m", bm, 16), ("base_n", bn, 16), ("base_k", bk, max(c0, 16))):
            if v <= 0 or v % mult:
                raise TraceError(f"TCubeTiling.{what} is {v}: it must be a positive multiple of {mult} for {in_dt}",
                                 loc)
        plan = X.Plan(lda=org["k_a"], ldb=org["k_b"] if self._trans_b else org["n"], ldc=org["n"], sm=single["m"],
                      sn=single["n"], sk=sk, bm=bm, bn=bn, bk=bk, trans_b=self._trans_b, c0=c0)
        return plan, in_dt


class MatmulIterator:
    """What `Matmul.iterate()` returns: a context manager (pyasc's `with matmul.iterate() as count:`, a runtime
    loop over the core's blocks, traced once) or a truth value (`while matmul.iterate():`, one block per call,
    unrolled while tracing)."""

    def __init__(self, mm: Matmul, loc: Any) -> None:
        self.mm, self.loc = mm, loc
        self.region: Any = None

    def __enter__(self) -> Any:
        from ..proxies.scalar import Scalar as _Scalar
        ctx = current("asc.adv.Matmul.iterate")
        if getattr(ctx, "eager", False):
            raise NotProvidedError("`with matmul.iterate() as count:` on the eager backend: its body is Python run "
                                   "once, and the loop needs it once per block", self.loc,
                                   hint="write `while matmul.iterate():` (with the block count known while "
                                        "tracing), or run on sim / cpp")
        state = self.mm._begin_iterate(self.loc)
        m_tiles, n_tiles = state[4], state[5]
        self.region = ctx.open_loop(0, m_tiles * n_tiles, 1, self.loc)
        count = _Scalar(self.region.var)
        self.mm._compute(state, count)
        return count

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        self.mm._cur = None
        if exc_type is None:
            current("asc.adv.Matmul.iterate").close_loop(self.region)
        return False

    def __bool__(self) -> bool:
        """`while matmul.iterate():` - while tracing, the first test opens a runtime loop over the blocks and
        traces the body once for a symbolic block, the second closes it (False); on eager (Python run as it
        goes), one block per test until the last."""
        mm = self.mm
        ctx = current("asc.adv.Matmul.iterate")
        if not getattr(ctx, "eager", False):
            if mm._open is None:
                from ..proxies.scalar import Scalar as _Scalar
                state = mm._begin_iterate(self.loc)
                mm._open = ctx.open_loop(0, state[4] * state[5], 1, self.loc)
                mm._compute(state, _Scalar(mm._open.var))
                return True
            ctx.close_loop(mm._open)
            mm._open, mm._cur = None, None
            return False
        if mm._unrolled is None:
            state = mm._begin_iterate(self.loc)
            # the eager context's own runtime loop over the blocks, as the trace's: a mixed kernel's eager cores
            # follow the scheduled graph's loop through it, with the cross-core flags of each iteration
            # (runtime/mix_eager.py)
            mm._unrolled = (state, iter(ctx.loop_range(0, state[4] * state[5], 1, self.loc)))
        state, blocks = mm._unrolled
        t = next(blocks, None)
        if t is None:                    # done: the next `while matmul.iterate():` starts over
            mm._unrolled, mm._cur = None, None
            return False
        mm._compute(state, t)
        return True


# Matmul methods of pyasc not provided, each with why
_ABSENT = {
    "iterate_batch": "batched matmuls are not provided yet",
    "iterate_n_batch": "batched matmuls are not provided yet",
    "wait_iterate_batch": "batched matmuls are not provided yet",
    "get_batch_tensor_c": "batched matmuls are not provided yet",
    "set_batch_num": "batched matmuls are not provided yet",
    "set_quant_scalar": "the quantised output (int8 / int4 through Fixpipe's quantisation) is not provided yet",
    "set_quant_vector": "the quantised output (int8 / int4 through Fixpipe's quantisation) is not provided yet",
    "set_sparse_index": "the sparse Matmul (MmadWithSparse) is not provided",
    "set_self_define_data": "the user-defined callbacks of the Matmul are not provided",
    "set_user_def_info": "the user-defined callbacks of the Matmul are not provided",
    "set_workspace": "the workspace of the mixed Matmul (C through GM to the vector core) is not provided yet",
    "async_get_tensor_c": _ITERATE[0],
    "wait_get_tensor_c": _ITERATE[0],
    "get_offset_c": "GetOffsetC (the block's place, for the asynchronous GetTensorC) is not provided",
}


def register_matmul(pipe: Any, workspace: Any, matmul: Matmul, tiling: TCubeTiling | None = None) -> None:
    """`REGIST_MATMUL_OBJ(pipe, workspace, matmul[, tiling])`: attach the Matmul to the kernel's TPipe.

    Raises:
        TraceError: not a TPipe, a GlobalAddress workspace and a Matmul.
    """
    current("asc.adv.register_matmul")
    loc = user_loc()
    if type(pipe).__name__ != "TPipe":
        raise TraceError(f"register_matmul takes the kernel's asc.TPipe first, got {type(pipe).__name__}", loc)
    if type(workspace).__name__ not in ("GlobalAddress", "GlobalTensor"):
        raise TraceError(f"register_matmul takes a GM workspace (a GlobalAddress), got {type(workspace).__name__}",
                         loc)
    if not isinstance(matmul, Matmul):
        raise TraceError(f"register_matmul takes an asc.adv.Matmul, got {type(matmul).__name__}", loc)
    matmul._registered = True
    matmul._workspace = workspace
    if tiling is not None:
        matmul.init(tiling)
