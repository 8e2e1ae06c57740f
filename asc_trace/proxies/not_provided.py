"""pyasc names asc_trace deliberately does not provide, each with what to use instead.

`asc.<name>` for one of these raises NotProvidedError (an AttributeError too, so `hasattr` stays
False) at the user's line, naming the alternative, instead of a bare "module has no attribute".
A name leaves this table when it is provided: module attributes are found before `__getattr__` runs.
"""
from __future__ import annotations

from ..errors import NotProvidedError
from .source_loc import user_loc

_TIMING = ("asc_trace's simulator does not expose a cycle counter to the kernel",
           "time a kernel from the host with asc.profile(kernel, *args, core_num=...) (modeled cycles per pipe)")
_CROSS_CORE = ("NotifyNextBlock / WaitPreBlock (the neighbour handshake through a GM workspace) are not modelled",
               "order the cores with asc.ib_set / asc.ib_wait, or asc.sync_all")

NOT_PROVIDED: dict[str, tuple[str, str]] = {
    "get_system_cycle": _TIMING, "get_program_counter": _TIMING, "print_time_stamp": _TIMING,
    "metrics_prof_start": _TIMING, "metrics_prof_stop": _TIMING,
    "notify_next_block": _CROSS_CORE, "wait_pre_block": _CROSS_CORE,
    "set_hccl_context": ("HCCL collective communication is outside asc_trace (a single-device kernel DSL)",
                         "run collectives from the host, e.g. with torch.distributed"),
    "get_hccl_context": ("HCCL collective communication is outside asc_trace (a single-device kernel DSL)",
                         "run collectives from the host, e.g. with torch.distributed"),
    # framework
    "TensorDesc": ("tensor lists described in global memory (their addresses are data the kernel reads)",
                   "pass each tensor as its own asc.GlobalAddress kernel parameter"),
    "ListTensorDesc": ("tensor lists described in global memory (their addresses are data the kernel reads)",
                       "pass each tensor as its own asc.GlobalAddress kernel parameter"),
    # vector ops the A2 vector core does not have: the vendor's dav_c220 implementation reports each unsupported
    # (asc-devkit impl/basic_api/dav_c220/kernel_operator_proposal_impl.h ASCENDC_REPORT_NOT_SUPPORT)
    "rp_sort16": ("RpSort16 is not supported on Atlas A2 (the 16-element region-proposal sort of older chips)",
                  "sort 32 elements at a time with asc.sort32 and merge the sorted groups with asc.mrg_sort (or "
                  "asc.sort(..., is_full_sort=True))"),
    "mrg_sort4": ("MrgSort4 is not supported on Atlas A2 (the region-proposal merge of older chips)",
                  "merge with asc.mrg_sort (Ascend C MrgSort, the A2 merge; same MrgSortSrcList and MrgSort4Info)"),
    "proposal_concat": ("ProposalConcat is not supported on Atlas A2 (region proposals of older chips)",
                        "keep scores and indices in their own tensors and sort them with asc.sort32"),
    "proposal_extract": ("ProposalExtract is not supported on Atlas A2 (region proposals of older chips)",
                         "keep scores and indices in their own tensors and sort them with asc.sort32"),
    "scatter": ("Scatter is not supported on Atlas A2 (asc-devkit dav_c220 ScatterImpl reports it unsupported)",
                "write each element with its own destination, or gather the other way round with asc.gather"),
    # A2 has it (asc-devkit impl/basic_api/dav_c220/kernel_operator_vec_bilinearinterpolation_impl.h); not modelled
    # yet: pyasc's test/kernels/test_bilinear_interpolation.py stopped at a bare AttributeError
    "bilinear_interpolation": ("BilinearInterpolation (16-element blocks gathered by offset, scaled per block or "
                               "per repeat and summed across horizontal repeats) is not modelled yet",
                               "gather the blocks with asc.gather, scale them with asc.mul or asc.muls and sum them "
                               "with asc.add"),
    "dump_acc_chk_point": ("DumpAccChkPoint (a dump at an accumulated offset) is not provided",
                           "asc.dump_tensor(tensor[offset:], desc, count) prints the same elements"),
}


# asc.adv names the high-level API does not have yet
_LOAD_MODES = ("LoadData's other forms (2D transpose of 8- / 32-bit fractals, repeat / boundary / padding registers "
               "of the img2col load) are not modelled: asc_trace's cube moves L1 -> L0 with LoadData2DParams and the "
               "matmul case of LoadData3DParamsV2",
               "load 16-bit fractals with asc.LoadData2DParams(..., if_transpose=True), or give B transposed (N x K) "
               "and load it untransposed; docs/cube.md")
_SPARSE = ("the structured-sparse Mmad (MmadWithSparse, LoadDataWithSparse: 4:2 sparse weights with an index "
           "matrix) is not modelled", "multiply the dense matrices with asc.mmad")
_HF32 = ("the HF32 mode (float inputs rounded to 19 bits inside Mmad) is not modelled: its rounding is not published",
         "multiply float32 in full precision (the default), or cast to float16 / bfloat16 first")
_FIX_QUANT = ("Fixpipe's quantising modes (DEQF16, QF322B8_PRE, REQ8 and their per-channel forms) take a deqScalar "
              "register value whose encoding the headers do not publish",
              "take the float32 result out (QuantModes.NoQuant / F322F16) and quantise on the vector core "
              "(asc.adv.quant)")
_CO1_COPY = ("DataCopy between L0C and other memories by struct (DataCopyCO12DstParams, Nz2NdParamsFull, "
             "DataCopyEnhancedParams) is the pre-Fixpipe path: on Atlas A2 L0C leaves through Fixpipe",
             "asc.fixpipe(dst, l0c, asc.FixpipeParamsV220(...)) to GM (ND) or L1 (Nz)")
_AIPP = ("AIPP (the image pre-processing unit of the inference chips: colour conversion, crop, padding into L1) is "
         "not modelled", "convert the image on the host or with vector ops")

NOT_PROVIDED.update({
    "LoadData2dTransposeParams": _LOAD_MODES, "load_data_with_transpose": _LOAD_MODES,
    "LoadDataRepeatParam": _LOAD_MODES, "set_load_data_repeat": _LOAD_MODES,
    "set_load_data_boundary": _LOAD_MODES, "set_load_data_padding_value": _LOAD_MODES,
    "LoadData2DParamsV2": _LOAD_MODES,
    "load_data_with_sparse": _SPARSE, "mmad_with_sparse": _SPARSE,
    "set_hf32_mode": _HF32, "set_hf32_trans_mode": _HF32,
    "set_mm_layout_transform": ("the Mmad layout-transform switch (which operand order the cube reads) is not "
                                "modelled", "lay the operands out as asc.mmad takes them (L0A Zz, L0B Zn)"),
    "set_fix_pipe_pre_quant_flag": _FIX_QUANT,
    "DataCopyCO12DstParams": _CO1_COPY, "Nz2NdParamsFull": _CO1_COPY, "DataCopyEnhancedParams": _CO1_COPY,
    "AippSwapParams": _AIPP, "AippDataTypeConvParams": _AIPP, "LoadImageToLocalParams": _AIPP,
    "load_image_to_local": _AIPP, "set_aipp_functions": _AIPP, "AippParams": _AIPP, "AippInputFormat": _AIPP,
})


_STATIC_TILING = ("the vendor's compile-time tiling from a MatmulConfig (GetMatmulApiTiling<MM_CFG>) is not provided",
                  "fill an asc.adv.TCubeTiling on the host with asc.lib.host.MultiCoreMatmulTiling / MatmulApiTiling "
                  "and pass it to the kernel")
ADV_NOT_PROVIDED: dict[str, tuple[str, str]] = {
    "get_matmul_api_tiling": _STATIC_TILING, "MatmulApiStaticTiling": _STATIC_TILING,
}


def module_getattr(name: str, table: dict[str, tuple[str, str]] = NOT_PROVIDED, module: str = "asc_trace") -> object:
    """A module `__getattr__` (asc_trace's; asc.adv's with its table): the error for a deliberately absent
    pyasc name, AttributeError otherwise."""
    entry = table.get(name)
    if entry is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    why, instead = entry
    spelled = module.replace("asc_trace", "asc", 1)       # as a pyasc user writes it
    raise NotProvidedError(f"{spelled}.{name} is not provided: {why}", user_loc(), hint=instead)


def adv_getattr(name: str) -> object:
    """`asc_trace.adv.__getattr__`."""
    return module_getattr(name, ADV_NOT_PROVIDED, "asc_trace.adv")
