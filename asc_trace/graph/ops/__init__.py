"""The op registry: one `OpDef` record per Ascend C operation, one file per API family.

A record carries everything the layers need about its op: the pipe it runs on, the dtypes A2 supports,
which operands are values, what it reads and writes, its NumPy semantics (`ref`), its cost (`VecCost`:
cycles per instruction, with the source of the figures), its Ascend C emission (a template with the
function that fills it, or a function; tinygrad's renderer-table style), its C++ model for the cpp
backend, its printer form and its numeric tolerance against NumPy. Records import only NumPy and
`graph/`; the emitter, the printer, the executors and the checks read them. A facet an op does not have
is `NA(reason)`, never left out silently (tests/test_op_registry.py). docs/adding-an-op.md says how to
add one.
"""
from __future__ import annotations

from .opdef import (  # noqa: F401  the registry's names, as the layers import them
    ARITH, BINARY, BINARY_LIKE, DIV, EXP, FLOATS, LN_SQRT, MUL, NA, REGISTRY, REPEAT_BYTES, UNARY_LIKE,
    UNARY_SIMPLE, VALUES_ALL, CppModel, OpDef, VecCost, accesses, family, get, read, register, vec_cost, with_role, written)

from . import (atomic, control, cross_core, cube, data_copy, debug, framework, mask_reg, scalar, sync, system, vec_binary, vec_cast, vec_cmpsel,  # noqa: F401  (each registers its records)
               vec_reduce, vec_scalar, vec_unary)
from . import vec_copy_brcb, vec_gather, vec_reduce_block  # noqa: F401 - pyasc's further vector families (docs/pyasc-vector-ops.md)
from . import vec_fused_cast  # noqa: F401 - traced and emitted, not run (the record says why)
from . import vec_sort  # noqa: F401 - Sort32
from . import buf_pool, event_pool  # noqa: F401 - TBufPool and the TPipe event-id pool (i21f)
from . import adv_activation, adv_glu, adv_layernorm, adv_log_softmax, adv_math, adv_norm, adv_sort  # noqa: F401 - the high-level API (asc.adv), after the basic ops its steps use


def _import_the_other_families() -> None:
    """Import every further record file of this package, so that a new op family is one new file here
    (docs/adding-an-op.md) without a line in this list; the helpers that register nothing are left out."""
    import importlib
    import pkgutil
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name not in _NOT_RECORD_FILES:
            importlib.import_module(f"{__name__}.{info.name}")


# generators and helpers, which the layers import when they need them
_NOT_RECORD_FILES = ("cpp_model", "emit_context", "record_family")
_import_the_other_families()
