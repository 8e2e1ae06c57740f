"""`asc.transpose(dst, src)`: Ascend C `Transpose(dst, src)`, the 16 x 16 transpose of 2-byte elements
(vtranspose): dst[i][j] = src[j][i] over 256 elements of each tensor, int16 / uint16 / half (asc-devkit
impl/basic_api/kernel_operator_vec_transpose_intf_impl.h: SupportType<PrimT<T>, int16_t, uint16_t, half>;
dav_c220 TransposeIntrinsicsImpl issues one vtranspose). The whole op is this record: the family
"vec_record" reads the call, the regions and the semantics off it (graph/ops/record_family.py).
pyasc's other form, `transpose(dst, src, shared_tmp_buffer, TransposeParamsExt)` (NCHW <-> NHWC), is not
provided."""
from __future__ import annotations

import numpy as np

from ..node import Pipe
from .opdef import NA, OpDef, VecCost, register
from .record_family import fixed_regions, operand_fields

SIDE = 16       # one vtranspose: a 16 x 16 block of 2-byte elements (512 bytes, two repeats)


def _transpose(src: np.ndarray) -> np.ndarray:
    """(cores, 256) -> (cores, 256): each core's 16 x 16 block, rows made columns."""
    return src.reshape(-1, SIDE, SIDE).transpose(0, 2, 1).reshape(src.shape)


register(
    OpDef("transpose", "vec_record", Pipe.V, "Transpose", arity=1, ref=_transpose,
          dtypes=frozenset({"int16", "uint16", "float16"}),
          cost=VecCost(5.9, 2.07, "assumed as vadd (vtranspose is not in the PTO-ISA cost model; it moves 512 "
                                  "bytes, two repeats)"),
          emit="AscendC::Transpose({dst}, {src});", emit_fields=operand_fields,
          cpp_model=NA("the cpp backend's C++ API model has no Transpose; sim and eager run it (cpu_debug's stub "
                       "layer does not model vtranspose)"),
          printer="dst", writes=(0,), accesses=fixed_regions(SIDE * SIDE, SIDE * SIDE),
          operands=("dst", "src"),
          other_forms="the NCHW <-> NHWC form (shared_tmp_buffer, asc.TransposeParamsExt) is not modelled",
          declared={"Transpose/2": ("include/basic_api/kernel_operator_vec_transpose_intf.h:50",
                                    "interface/kernel_operator_vec_transpose_intf.h:52")},
          doc="`asc.transpose(dst, src)`: Ascend C Transpose(dst, src), dst[i][j] = src[j][i] for one 16 x 16 "
              "block of int16 / uint16 / float16 (256 elements of each tensor)."),
)
