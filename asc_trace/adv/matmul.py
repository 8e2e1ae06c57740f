"""pyasc's high-level Matmul (`asc.adv.Matmul`, `asc.adv.register_matmul`): C = A x B (+ bias) on the cube.

A Matmul is built on the basic cube API: `iterate_all` expands while tracing into data_copy (Nd2Nz), load_data,
mmad and fixpipe records (adv/matmul_expand.py), so auto_sync derives its flags, the simulator runs it on bytes
in the fractal layouts, and the timing model and the emitted Ascend C see the instructions themselves.

Provided: A, B, C and the bias in GM, ND; A given M x K; B given K x N (16-bit types) or transposed (N x K, any
type Mmad takes); C float32 / float16 / bfloat16 from float inputs, int32 from int8; the tiling from
`register_matmul(..., tiling)` or `init(tiling)`; `set_tail`, `set_org_shape`, `set_single_shape`; `iterate_all`
to a GlobalTensor; `end`. What is not (the per-block `iterate` / `get_tensor_c` loop, outputs to the Unified
Buffer (a mixed cube + vector kernel), batches, quantisation, sparse A) raises NotProvidedError at its line.
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


_ITERATE = ("the per-block Iterate / GetTensorC loop (a mixed cube + vector kernel when C goes to the Unified "
            "Buffer) is not provided yet", "matmul.iterate_all(c_global) computes the core's whole block into GM")


class Matmul:
    """`asc.adv.Matmul(a, b, c, bias=None, matmul_config=None, matmul_policy=0)`: the operands' MatmulTypes."""

    def __init__(self, a: MatmulType | None = None, b: MatmulType | None = None, c: MatmulType | None = None,
                 bias: MatmulType | None = None, matmul_config: MatmulConfig | None = None,
                 matmul_policy: Any = 0) -> None:
        current("asc.adv.Matmul")
        loc = user_loc()
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

    def iterate(self, *args: Any, **kwargs: Any) -> Any:
        raise _not_provided("iterate", *_ITERATE)

    def get_tensor_c(self, *args: Any, **kwargs: Any) -> Any:
        raise _not_provided("get_tensor_c", *_ITERATE)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _ABSENT:
            raise _not_provided(name, _ABSENT[name])
        raise AttributeError(f"asc.adv.Matmul has no method {name!r}")

    # -- checks -----------------------------------------------------------------------------------------

    def _check_ready(self, loc: Any) -> None:
        if not self._registered:
            raise TraceError("this Matmul was not registered: call asc.adv.register_matmul(pipe, workspace, matmul"
                             "[, tiling]) first", loc)
        if self._ended:
            raise TraceError("this Matmul was ended (matmul.end()); build a new one", loc)
        if self._tiling is None:
            raise TraceError("this Matmul has no tiling: pass it to register_matmul or call matmul.init(tiling)", loc)
        if self._a is None or self._b is None:
            raise TraceError("set A and B first: matmul.set_tensor_a(a_global), matmul.set_tensor_b(b_global)", loc)
        for what, t in (("A", self.a_type), ("B", self.b_type), ("C", self.c_type)):
            if TPosition(t.position) != TPosition.GM or CubeFormat(t.format) != CubeFormat.ND:
                raise NotProvidedError(f"asc.adv.Matmul with {what} at TPosition.{TPosition(t.position).name}, "
                                       f"CubeFormat.{CubeFormat(t.format).name} is not provided (GM, ND is)", loc)
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
    "get_offset_c": _ITERATE[0],
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
    if tiling is not None:
        matmul.init(tiling)
