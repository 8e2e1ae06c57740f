"""Is the NPU backend usable here (torch-npu importable, an NPU visible, a CANN toolkit found), and
which of the toolkit's runtime libraries launches the kernel."""
from __future__ import annotations

import ctypes
import importlib.util
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import ToolchainError


@lru_cache(maxsize=1)
def npu_usable() -> bool:
    if os.environ.get("ASC_TRACE_DISABLE_NPU"):
        return False
    if importlib.util.find_spec("torch_npu") is None:
        return False
    if not (os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME")):
        return False
    try:
        import torch  # noqa: F401
        import torch_npu  # noqa: F401
        return bool(torch.npu.is_available())
    except Exception:  # noqa: BLE001 - any failure means "not usable"
        return False


# The functions each launch path calls (runtime/npu.py), as the runtime headers declare them.
# ACL: include/external/acl/acl_rt.h of github.com/hicann/runtime; the sequence of CANN 9's own Ascend C
# launcher (github.com/cannmirror/asc-devkit tools/build/asc_rt/ascendc_runtime.cpp).
ACL_FUNCTIONS = ("aclrtBinaryLoadFromData", "aclrtBinaryGetFunction", "aclrtLaunchKernelWithHostArgs")
# rt: pkg_inc/runtime/runtime/kernel.h of hicann/runtime (experiment/runtime/runtime/kernel.h in 8.1.RC1).
RT_FUNCTIONS = ("rtDevBinaryRegister", "rtFunctionRegister", "rtKernelLaunch")

# libacl_rt.so first: the runtime's API reference lists acl_rt.h under libacl_rt.so and keeps libascendcl.so
# only "for compatibility with old versions ... this way will be deprecated in later versions" (hicann/runtime
# docs/zh/api_ref/01_overview.md, table 2); its own examples link libacl_rt.so. CANN 8.1.RC1 has no
# libacl_rt.so (runtime/script/filelist.csv installs libascendcl.so and libruntime.so), hence the fallback.
ACL_LIBRARIES = ("libacl_rt.so", "libascendcl.so")
RT_LIBRARY = "libruntime.so"


@dataclass(frozen=True)
class LaunchPlan:
    kind: str                  # "acl" or "rt"
    library: Path              # where the launch functions come from
    acl_library: Path | None   # the ACL library, if any, for aclGetRecentErrMsg
    reason: str                # why this path, for `python -m asc_trace info` and error messages


def load_library(path: Path) -> ctypes.CDLL:
    try:
        return ctypes.CDLL(str(path))
    except OSError as exc:
        raise ToolchainError(f"cannot load the CANN runtime library {path}: {exc}", None,
                             hint="source the toolkit's set_env.sh so that its lib64 dependencies are found") from exc


def missing_functions(lib: ctypes.CDLL, names: tuple[str, ...]) -> list[str]:
    return [n for n in names if not hasattr(lib, n)]


def launch_plan(lib64: Path, force: str | None = None) -> LaunchPlan:
    """The launch path for the toolkit whose runtime libraries are in `lib64`, decided by what the
    libraries export rather than by the version number: `force` ("acl" or "rt", from ASC_TRACE_NPU_LAUNCH)
    overrides the choice but not the checks.

    Raises:
        ToolchainError: no usable library, or a forced path whose functions are missing.
    """
    if force not in (None, "", "acl", "rt"):
        raise ToolchainError(f"ASC_TRACE_NPU_LAUNCH={force!r}: expected 'acl' or 'rt'", None)
    acl_path = next((lib64 / n for n in ACL_LIBRARIES if (lib64 / n).is_file()), None)
    rt_path = lib64 / RT_LIBRARY
    acl_missing = list(ACL_FUNCTIONS) if acl_path is None else missing_functions(load_library(acl_path), ACL_FUNCTIONS)
    if force == "acl" or (force != "rt" and acl_path is not None and not acl_missing):
        if acl_path is None:
            raise ToolchainError(f"no {' or '.join(ACL_LIBRARIES)} in {lib64}", None)
        if acl_missing:
            raise ToolchainError(f"{acl_missing[0]} is not in {acl_path}, so the ACL launch path cannot be used "
                                 "(it appeared in CANN 8.5)", None,
                                 hint="unset ASC_TRACE_NPU_LAUNCH to use the rt path")
        return LaunchPlan("acl", acl_path, acl_path,
                          f"{acl_path.name} exports {', '.join(ACL_FUNCTIONS)}; the rt* functions are marked "
                          "deprecated and to be removed in the runtime headers")
    if not rt_path.is_file():
        have = f"{acl_path} lacks {acl_missing[0]}" if acl_path is not None else f"no {' or '.join(ACL_LIBRARIES)}"
        raise ToolchainError(f"no way to launch a kernel with the CANN runtime in {lib64}: {have}, and there is "
                             f"no {RT_LIBRARY}", None)
    # The last resort: rtDevBinaryRegister / rtFunctionRegister / rtKernelLaunch are deprecated ("will be
    # removed in a future release": hicann/runtime pkg_inc/runtime/runtime/__clang_cce_runtime.h), but before
    # CANN 8.5 they are the only way to load a device ELF from memory: 8.1.RC1's acl_rt.h declares the
    # load-option types and none of the three ACL functions. pyasc and triton-ascend launch this way.
    why = ("forced by ASC_TRACE_NPU_LAUNCH=rt" if force == "rt" else
           f"{acl_path.name} has no {acl_missing[0]}" if acl_path is not None else f"no {' or '.join(ACL_LIBRARIES)}")
    return LaunchPlan("rt", rt_path, acl_path, f"{why}: using the deprecated rt* functions of {RT_LIBRARY}")
