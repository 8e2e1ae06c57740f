"""Transpose, 16 x 16 (Ascend C `Transpose(dst, src)`, include/basic_api/kernel_operator_vec_transpose_intf.h;
the vtranspose instruction on A2): one 16 x 16 matrix of 2-byte elements, dst[j][i] = src[i][j], a pure move of
bits (NaN payloads and signed zeros kept).

This file is the whole op: in the family "vec_record" the record states the call (`operands`), the regions it
touches (`accesses`) and its semantics on them (`ref`), and the front end (proxies/api_record.py), the executor
(runtime/executors_record.py) and the emitter read them (docs/adding-an-op.md)."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from .opdef import NA, OpDef, VecCost, register
from .record_family import fixed_regions, operand_fields

SIDE = 16


def _transposed(src: np.ndarray) -> np.ndarray:
    """src: (cores, 256) -> each core's 16 x 16 matrix transposed, flattened again."""
    cores = src.shape[0]
    return src.reshape(cores, SIDE, SIDE).transpose(0, 2, 1).reshape(cores, SIDE * SIDE)


register(
    OpDef("transpose", "vec_record", Pipe.V, "Transpose", arity=1,
          dtypes=frozenset({"float16", "int16", "uint16"}),
          operands=("dst", "src"),
          other_forms="asc.transpose's extended form (shared_tmp_buffer, TransposeParamsExt: NCHW <-> NHWC and the "
                      "Nz layouts) is not provided yet; asc.transpose(dst, src) transposes one 16 x 16 matrix of "
                      "2-byte elements",
          accesses=fixed_regions(SIDE * SIDE, SIDE * SIDE), ref=_transposed,
          cost=VecCost(20.0, 8.0, "assumed: vtranspose is not in the PTO-ISA cost model (one 512-byte matrix)"),
          emit="AscendC::Transpose({dst}, {src});", emit_fields=operand_fields,
          cpp_model=NA("the cpp backend's C++ API model has no Transpose; sim and eager run it"), printer="dst",
          writes=(0,),
          declared={"Transpose/2": ("include/basic_api/kernel_operator_vec_transpose_intf.h:50",
                                    "interface/kernel_operator_vec_transpose_intf.h:52")}),
)
