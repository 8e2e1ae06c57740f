"""Which open issue owns a pyasc name: the vector core and the framework (#21), the high-level API
`asc.adv` (#22), or the cube and mixed cube + vector kernels, Matmul included (#23).

Names are pyasc paths without the leading `asc.`: `add`, `adv.softmax`, `TPosition.A1`,
`LocalTensor.get_length`, `runtime.config.set_platform`, `lib.host.MatmulApiTiling`.
"""
from __future__ import annotations

VECTOR, ADV, CUBE = 21, 22, 23
FAMILY = {VECTOR: "vector/framework", ADV: "asc.adv", CUBE: "cube/Matmul"}

# pyasc names that only mean something on the cube (L1 / L0A / L0B / L0C / bias table / FixPipe), in
# matmul configuration, in mixed AIC + AIV kernels, or in AIPP (image loads into L1).
CUBE_NAMES = frozenset({
    # basic/mm.py, basic/fixpipe.py
    "mmad", "mmad_with_sparse", "load_data", "load_data_with_sparse", "load_data_with_transpose",
    "init_const_value", "set_load_data_boundary", "set_load_data_padding_value", "set_load_data_repeat",
    "fixpipe", "set_fix_pipe_pre_quant_flag",
    # cube modes, and the two core types of a mixed kernel
    "set_hf32_mode", "set_hf32_trans_mode", "set_mm_layout_transform",
    "cross_core_set_flag", "cross_core_wait_flag", "ascend_is_aic", "ascend_is_aiv",
    "get_sub_block_idx", "get_sub_block_num", "get_task_ratio",
    # constants and parameter structs of the cube
    "property", "DEFAULT_C0_SIZE", "TOTAL_L0C_SIZE", "TOTAL_L1_SIZE", "CubeFormat", "CO2Layout",
    "MmadParams", "LoadData2DParams", "LoadData2DParamsV2", "LoadData2dTransposeParams",
    "LoadData2dTransposeParamsV2", "LoadData3DParamsV1", "LoadData3DParamsV2", "LoadData3DParamsV2Pro",
    "LoadDataRepeatParam", "Nd2NzParams", "Nz2NdParamsFull", "DataCopyCO12DstParams", "DataCopyEnhancedParams",
    "BlockMode", "DeqScale", "pad_t", "FixpipeConfig", "FixpipeParamsV220", "InitConstValueParams", "QuantModes",
    # matmul configuration enums
    "BatchMode", "IterateMode", "IterateOrder", "ScheduleType", "MatmulConfigMode", "LayoutMode",
    # AIPP: image pre-processing into L1
    "set_aipp_functions", "load_image_to_local", "LoadImageToLocalParams", "AippInputFormat", "AippParams",
    "AippPaddingParams", "AippSwapParams", "AippSingleLineParams", "AippDataTypeConvParams",
    "AippChannelPaddingParams", "AippColorSpaceConvParams",
})

# Members of vector/framework enums that belong to the cube.
CUBE_MEMBERS = frozenset(
    [f"TPosition.{p}" for p in ("A1", "A2", "B1", "B2", "C1", "C2", "CO1", "CO2")]
    + [f"HardEvent.{e}" for e in ("MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "M_V", "V_M", "MTE3_MTE1",
                                  "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1", "M_FIX", "FIX_M",
                                  "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1",
                                  "FIX_FIX")]
    + [f"PipeID.{p}" for p in ("PIPE_M", "PIPE_MTE1", "PIPE_FIX")]
    + [f"Hardware.{h}" for h in ("L1", "L0A", "L0B", "L0C", "BIAS", "FIXBUF")])

# asc.adv names that are Matmul's (the cube issue), not the vector high-level API's.
ADV_MATMUL = frozenset({
    "Matmul", "MatmulType", "register_matmul", "get_matmul_api_tiling", "get_basic_config",
    "get_ib_share_norm_config", "get_mdl_config", "get_mm_config", "get_normal_config", "get_special_basic_config",
    "get_special_mdl_config", "MatmulApiStaticTiling", "TCubeTiling", "MatmulBatchParams", "MatmulConfig",
    "MatmulFuncParams", "MatmulQuantParams", "MatmulShapeParams",
})

# jit options that make a kernel a cube kernel.
CUBE_OPTIONS = frozenset({"matmul_cube_only"})


def owner(name: str) -> int:
    """The issue that owns pyasc name `name` (see the module docstring for the spelling)."""
    parts = name.split(".")
    if parts[0] == "asc":
        parts = parts[1:]
    if not parts:
        return VECTOR
    if parts[0] == "adv":
        return CUBE if len(parts) > 1 and parts[1] in ADV_MATMUL else ADV
    if parts[0] == "lib" and len(parts) > 1 and parts[1] == "host":
        return CUBE
    if parts[0] in CUBE_NAMES or ".".join(parts[:2]) in CUBE_MEMBERS:
        return CUBE
    return VECTOR


def family(names: set[str] | list[str], options: set[str] = frozenset()) -> int:
    """The issue a kernel belongs to: the cube's if it uses any cube name or option, else asc.adv's if
    it uses asc.adv, else the vector surface's."""
    owners = {owner(n) for n in names}
    if CUBE in owners or set(options) & CUBE_OPTIONS:
        return CUBE
    return ADV if ADV in owners else VECTOR
