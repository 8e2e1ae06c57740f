"""pyasc names asc_trace deliberately does not provide, each with what to use instead.

`asc.<name>` for one of these raises NotProvidedError (an AttributeError too, so `hasattr` stays
False) at the user's line, naming the alternative, instead of a bare "module has no attribute".
A name leaves this table when it is provided: module attributes are found before `__getattr__` runs.
"""
from __future__ import annotations

from ..errors import NotProvidedError
from .source_loc import user_loc

_MASK = ("asc_trace does not model the vector mask register: each vector op sets its own mask",
         "pass mask= (with repeat_times= and repeat_params=) or count= to the op itself")
_TIMING = ("asc_trace's simulator does not expose a cycle counter to the kernel",
           "time a kernel from the host with asc.profile(kernel, *args, core_num=...) (modeled cycles per pipe)")
_CROSS_CORE = ("ordering between vector cores inside one launch is not modelled",
               "split the kernel at that point into two launches (the launch boundary orders every core)")
_ATOMIC = ("GM atomics (a store that accumulates into GM) are not provided yet",
           "let each GM element be written by one core, or reduce the partial results in a second launch")

_CMPMASK = ("the compare-mask register (CMPMASK) is not modelled",
            "keep the asc.compare result in a uint8 tensor and pass it to asc.select as sel_mask "
            "(SELMODE.VSEL_TENSOR_TENSOR_MODE)")

NOT_PROVIDED: dict[str, tuple[str, str]] = {
    "get_cmp_mask": _CMPMASK, "set_cmp_mask": _CMPMASK,
    "get_system_cycle": _TIMING, "get_program_counter": _TIMING, "print_time_stamp": _TIMING,
    "metrics_prof_start": _TIMING, "metrics_prof_stop": _TIMING,
    "sync_all": _CROSS_CORE, "ib_set": _CROSS_CORE, "ib_wait": _CROSS_CORE,
    "notify_next_block": _CROSS_CORE, "wait_pre_block": _CROSS_CORE,
    "set_atomic_add": _ATOMIC, "set_atomic_max": _ATOMIC, "set_atomic_min": _ATOMIC,
    "set_atomic_none": _ATOMIC, "set_atomic_type": _ATOMIC, "set_store_atomic_config": _ATOMIC,
    "get_store_atomic_config": _ATOMIC,
    "set_hccl_context": ("HCCL collective communication is outside asc_trace (a single-device kernel DSL)",
                         "run collectives from the host, e.g. with torch.distributed"),
    "get_hccl_context": ("HCCL collective communication is outside asc_trace (a single-device kernel DSL)",
                         "run collectives from the host, e.g. with torch.distributed"),
    # framework
    "TensorDesc": ("tensor lists described in global memory (their addresses are data the kernel reads)",
                   "pass each tensor as its own asc.GlobalAddress kernel parameter"),
    "ListTensorDesc": ("tensor lists described in global memory (their addresses are data the kernel reads)",
                       "pass each tensor as its own asc.GlobalAddress kernel parameter"),
    "TBufPool": ("sub-pools of the TPipe's memory that are reset and reused",
                 "give each stage its own TQue / TBuf, or reuse one TBuf's memory with tbuf.get_with_offset"),
    "get_tpipe_ptr": ("the TPipe's event-id pool (alloc / fetch / release_event_id)",
                      "leave the synchronisation to the scheduler (auto_sync=True), or use asc.set_flag / "
                      "asc.wait_flag with your own ids"),
    # vector ops the A2 vector core does not have: the vendor's dav_c220 implementation reports each unsupported
    # (asc-devkit impl/basic_api/dav_c220/kernel_operator_proposal_impl.h ASCENDC_REPORT_NOT_SUPPORT)
    "rp_sort16": ("RpSort16 is not supported on Atlas A2 (the 16-element region-proposal sort of older chips)",
                  "sort 32 elements at a time with asc.sort32, and merge sorted lists with asc.mrg_sort"),
    "mrg_sort4": ("MrgSort4 is not supported on Atlas A2 (the region-proposal merge of older chips)",
                  "merge sorted (score, index) lists with asc.mrg_sort"),
    "proposal_concat": ("ProposalConcat is not supported on Atlas A2 (region proposals of older chips)",
                        "keep scores and indices in their own tensors and sort them with asc.sort32"),
    "proposal_extract": ("ProposalExtract is not supported on Atlas A2 (region proposals of older chips)",
                         "keep scores and indices in their own tensors and sort them with asc.sort32"),
    "scatter": ("Scatter is not supported on Atlas A2 (asc-devkit dav_c220 ScatterImpl reports it unsupported)",
                "write each element with its own destination, or gather the other way round with asc.gather"),
    "dump_acc_chk_point": ("DumpAccChkPoint (a dump at an accumulated offset) is not provided",
                           "asc.dump_tensor(tensor[offset:], desc, count) prints the same elements"),
}


# asc.adv names the high-level API does not have yet
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
