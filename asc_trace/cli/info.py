"""`asc-trace info`: versions, which backends are usable here and why not the others, the cache."""
from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from .. import config
from .._version import __version__
from ..errors import AscTraceError, LaunchError
from .common import EXIT_OK, EXIT_UNAVAILABLE, add_command

BACKENDS = ("sim", "eager", "cpp", "cpu_debug", "npu")


def add_parser(sub: Any) -> None:
    p = add_command(sub, "info", help="versions, usable backends (and why not the others), the cache",
                    description="Show asc_trace's version and dependencies, which backends can run here and what "
                                "each missing one needs (CANN, bisheng, an NPU, the Ascend C headers), and the "
                                "compile cache's folder and size.")
    p.add_argument("--json", action="store_true", help="print the same facts as one JSON object")
    p.add_argument("--require", metavar="BACKEND", choices=BACKENDS,
                   help=f"exit with code 4 unless BACKEND ({', '.join(BACKENDS)}) is usable here")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    facts = gather()
    print(json.dumps(facts, indent=2) if args.json else render(facts))
    if args.require and not facts["backends"][args.require]["usable"]:
        return EXIT_UNAVAILABLE
    return EXIT_OK


def _dist_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def gather() -> dict[str, Any]:
    """Every fact `info` shows, as plain data (the --json output)."""
    import networkx
    import numpy
    from ..toolchain.cache import disk_usage, entries
    cache = config.cache_dir()
    toolchain = {"cann": _cann(), "ascendc_headers": _headers(), "gxx": _gxx()}
    backends = {"sim": _yes("the NumPy simulator of the AI Vector core (pipes, events, race checker)"),
                "eager": _yes("the kernel function itself, run op by op on NumPy"),
                "cpp": _cpp(toolchain["gxx"]),
                "cpu_debug": _cpu_debug(toolchain),
                "npu": _npu(toolchain["cann"])}
    return {
        "asc_trace": {"version": __version__, "path": str(Path(__file__).resolve().parents[1])},
        "python": {"version": platform.python_version(), "executable": sys.executable},
        "numpy": numpy.__version__, "networkx": networkx.__version__,
        "torch": _dist_version("torch"), "torch_npu": _dist_version("torch-npu") or _dist_version("torch_npu"),
        "default_backend": {"ASC_TRACE_BACKEND": os.environ.get("ASC_TRACE_BACKEND"),
                            "resolves_to": _resolve(config.backend_from_env())},
        "backends": backends,
        "toolchain": toolchain,
        "cache": {"dir": str(cache), "entries": len(entries(cache)) if cache.is_dir() else 0,
                  "bytes": disk_usage(cache)},
    }


def _resolve(name: str) -> str:
    from ..runtime import get_runtime
    try:
        return get_runtime(name).name
    except LaunchError as e:
        return f"nothing: {e.msg}"


def _yes(why: str) -> dict[str, Any]:
    return {"usable": True, "why": why}


def _no(why: str) -> dict[str, Any]:
    return {"usable": False, "why": why}


def _gxx() -> dict[str, Any]:
    from ..toolchain.host_cxx import compiler
    try:
        path, version = compiler()
        return {"found": True, "path": path, "version": version}
    except AscTraceError as e:
        return {"found": False, "why": e.msg}


def _cann() -> dict[str, Any]:
    from ..toolchain.bisheng import find_toolchain
    try:
        tc = find_toolchain()
    except AscTraceError as e:
        return {"found": False, "why": e.msg}
    from ..toolchain.cann_layout import lib64
    from ..runtime.npu_detect import launch_plan
    try:
        plan = launch_plan(lib64(tc.home), os.environ.get("ASC_TRACE_NPU_LAUNCH"))
        launch = f"{plan.kind}: {plan.reason}"
    except AscTraceError as e:
        launch = f"none: {e.msg}"
    return {"found": True, "home": str(tc.home), "version": tc.version, "bisheng": str(tc.bisheng),
            "ld_lld": str(tc.ld_lld), "launch": launch}


def _headers() -> dict[str, Any]:
    from ..toolchain.ascendc_headers import devkit_beside_checkout, find_ascendc_headers
    try:
        h = find_ascendc_headers()
    except AscTraceError as e:
        kit = devkit_beside_checkout()
        how = (f"; the vendor's asc-devkit is beside this checkout: export ASC_TRACE_ASCENDC_HOME={kit} "
               "(the tests use it)" if kit else "; point ASC_TRACE_ASCENDC_HOME at an asc-devkit checkout "
               "(the folder holding include/kernel_operator.h) or at a CANN toolkit")
        return {"found": False, "why": e.msg + how, "beside_checkout": str(kit) if kit else None}
    return {"found": True, "root": str(h.root), "origin": h.origin, "layout": h.layout,
            "kernel_operator": str(h.kernel_operator), "cpu_stub": str(h.cpu_stub) if h.cpu_stub else None,
            "describe": h.describe()}


def _cpp(gxx: dict[str, Any]) -> dict[str, Any]:
    if not gxx["found"]:
        return _no(gxx["why"])
    return _yes(f"{gxx['version']}: the emitted Ascend C built against asc_trace's C++ model of the API")


def _backend_exists(name: str) -> bool:
    from ..runtime import get_runtime
    try:
        get_runtime(name)
    except LaunchError:          # "unknown backend": this version does not have it
        return False
    return True


def _cpu_debug(toolchain: dict[str, Any]) -> dict[str, Any]:
    headers = toolchain["ascendc_headers"]
    missing = []
    if not _backend_exists("cpu_debug"):
        missing.append("this version of asc_trace has no cpu_debug backend")
    if not headers["found"]:
        missing.append(headers["why"])
    if not toolchain["gxx"]["found"]:
        missing.append(toolchain["gxx"]["why"])
    if missing:
        return _no("; ".join(missing))
    from ..runtime import get_runtime
    rt = get_runtime("cpu_debug")
    if not rt.available():
        return _no(f"the cpu_debug backend reports it cannot run with the headers at {headers['root']}")
    return _yes(f"the emitted Ascend C built against the real headers: {headers['describe']}")


def _npu(cann: dict[str, Any]) -> dict[str, Any]:
    missing = []
    if os.environ.get("ASC_TRACE_DISABLE_NPU"):
        missing.append("ASC_TRACE_DISABLE_NPU is set")
    has_torch_npu = importlib.util.find_spec("torch_npu") is not None
    if not has_torch_npu:
        missing.append("torch-npu is not installed (pip install 'asc-trace[npu]')")
    if not cann["found"]:
        missing.append(cann["why"])
    devices = 0
    if has_torch_npu and cann["found"]:
        try:
            import torch
            import torch_npu  # noqa: F401  (registers torch.npu)
            devices = torch.npu.device_count() if torch.npu.is_available() else 0
        except Exception as exc:  # noqa: BLE001 - any failure to reach a device is the reason shown
            missing.append(f"torch-npu cannot reach a device: {exc}")
        else:
            if not devices:
                missing.append("no Ascend NPU is visible to torch-npu")
    if missing:
        return _no("; ".join(missing))
    return _yes(f"CANN {cann['version']} at {cann['home']}, {devices} NPU(s); launches on the torch-npu stream "
                "(never run by asc_trace's developers: see the README)")


def count_text(n: int) -> str:
    return f"{n} entr{'y' if n == 1 else 'ies'}"


def size_text(n: float) -> str:
    """1536 -> '1.5 KiB'."""
    unit = "B"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            break
        n /= 1024
    return f"{n:.0f} B" if unit == "B" else f"{n:.1f} {unit}"


def render(f: dict[str, Any]) -> str:
    lines = [f"asc_trace  {f['asc_trace']['version']}  ({f['asc_trace']['path']})",
             f"Python     {f['python']['version']}  ({f['python']['executable']})",
             f"NumPy      {f['numpy']}",
             f"networkx   {f['networkx']}",
             f"torch      {f['torch'] or 'not installed (optional: asc.torch_op, torch tensors as arguments)'}",
             f"torch-npu  {f['torch_npu'] or 'not installed (optional: the npu backend)'}",
             ""]
    env = f["default_backend"]["ASC_TRACE_BACKEND"]
    lines.append(f"backends (default {'ASC_TRACE_BACKEND=' + env if env else 'auto'}: runs on "
                 f"{f['default_backend']['resolves_to']} here)")
    for name, b in f["backends"].items():
        lines.append(f"  {name:<10} {'yes' if b['usable'] else 'no ':<4} {b['why']}")
    lines.append("")
    cann, hdr = f["toolchain"]["cann"], f["toolchain"]["ascendc_headers"]
    lines.append("toolchain")
    lines.append(f"  g++               {f['toolchain']['gxx'].get('version') or f['toolchain']['gxx'].get('why')}")
    lines.append("  CANN / bisheng    " + (f"CANN {cann['version']} at {cann['home']}, bisheng {cann['bisheng']}"
                                           if cann["found"] else cann["why"]))
    if cann["found"]:
        lines.append(f"  CANN launch path  {cann['launch']}")
    lines.append("  Ascend C headers  " + (hdr["describe"] if hdr["found"] else hdr["why"]))
    lines.append("")
    c = f["cache"]
    # the cache has no size limit: say how to empty it, where a newcomer sees its size
    lines.append(f"cache  {c['dir']}: {count_text(c['entries'])}, {size_text(c['bytes'])} "
                 "(no size limit; `asc-trace cache clear` empties it)")
    return "\n".join(lines)
