"""The NPU build: bisheng compiles the emitted Ascend C for Atlas A2 vector cores, ld.lld links the
device ELF (docs/facts.md#facts-8, #npu-build). Toolchain discovery follows CANN's environment script:
ASCEND_HOME_PATH (or ASCEND_TOOLKIT_HOME), then PATH; the toolkit's layout, release and headers are
read from its own files (toolchain/cann_layout.py).

Not run on hardware: no machine asc_trace is developed on has CANN. The command line was compared flag
by flag with the vendor's kernel builds of both generations (see `compile_commands`); the tests check it
against fake toolkits laid out like the real ones.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ToolchainError
from ..graph.kernel_graph import KernelGraph
from .sources import PRELUDE_DIR
from .cann_layout import UNKNOWN_VERSION, CannVersion, arch_dir, ascendc_layout, read_version
from .compile_errors import compiler_error
from ..kernel_options import as_options

INSTALL_HINT = ("install the CANN toolkit (it provides bisheng, ld.lld and the Ascend C headers) and load its "
                "environment: `source /usr/local/Ascend/ascend-toolkit/set_env.sh` (CANN 8) or "
                "`source /usr/local/Ascend/cann/set_env.sh` (CANN 9); or use backend='sim' or 'cpp'")


@dataclass(frozen=True)
class Toolchain:
    home: Path
    bisheng: Path
    ld_lld: Path
    includes: tuple[Path, ...]
    version_header: Path | None = None
    generation: int = 8                      # 8: tikcfw headers; 9: asc/ headers (cann_layout.py)
    cann: CannVersion = field(default=UNKNOWN_VERSION)

    @property
    def version(self) -> str:
        return self.cann.text

    @property
    def version_tuple(self) -> tuple[int, ...]:
        return self.cann.numbers

    @property
    def identity(self) -> str:
        return f"CANN {self.version} (layout {self.generation}) bisheng={self.bisheng}"


def _home_of(bisheng: str) -> Path:
    """The toolkit around a bisheng found on PATH: .../<home>/{compiler,tools,<arch>-linux}/ccec_compiler/
    bin/bisheng (8.1.RC1 set_env.sh puts compiler/ and tools/ccec_compiler/bin on PATH), else
    .../<home>/ccec_compiler/bin. The path as found is tried before its resolved form, so `latest`
    stays `latest` rather than becoming the release folder it links to."""
    found = Path(bisheng)
    for p in (found, found.resolve()):
        up = p.parents[min(2, len(p.parents) - 1)]
        if up.name in ("compiler", "tools") or up.name.endswith("-linux"):
            return up.parent
    return found.parents[min(2, len(found.parents) - 1)]


def find_toolchain(env: dict[str, str] | None = None) -> Toolchain:
    """The CANN toolchain, or a ToolchainError saying what is missing and how to get it."""
    env = dict(os.environ if env is None else env)
    home_s = env.get("ASCEND_HOME_PATH") or env.get("ASCEND_TOOLKIT_HOME")
    home = Path(home_s) if home_s else None
    search: list[Path] = []
    if home is not None:
        if not home.is_dir():
            raise ToolchainError(f"ASCEND_HOME_PATH points to {home}, which is not a directory", None, hint=INSTALL_HINT)
        search += [arch_dir(home) / "ccec_compiler" / "bin", home / "compiler" / "ccec_compiler" / "bin",
                   home / "tools" / "ccec_compiler" / "bin", home / "ccec_compiler" / "bin", home / "bin"]
    path = os.pathsep.join([str(p) for p in search] + [env.get("PATH", "")])
    bisheng = shutil.which("bisheng", path=path)
    ld = shutil.which("ld.lld", path=path)
    missing = [name for name, p in (("bisheng", bisheng), ("ld.lld", ld)) if p is None]
    if home is None and bisheng is not None:
        home = _home_of(bisheng)
    if home is None:
        names = missing or ["bisheng"]
        raise ToolchainError("no CANN toolkit found: ASCEND_HOME_PATH and ASCEND_TOOLKIT_HOME are not set and "
                             f"{' and '.join(names)} {'are' if len(names) > 1 else 'is'} not on PATH", None,
                             hint=INSTALL_HINT)
    if missing:
        raise ToolchainError(f"the CANN toolkit at {home} has no {' or '.join(missing)}", None, hint=INSTALL_HINT)
    layout = ascendc_layout(home)
    if not any((p / "kernel_operator.h").is_file() for p in layout.includes):
        where = "asc/include" if layout.generation == 9 else "tikcpp/tikcfw"
        raise ToolchainError(f"the CANN toolkit at {home} has no kernel_operator.h under {layout.devkit / where}",
                             None, hint=INSTALL_HINT)
    return Toolchain(home, Path(bisheng), Path(ld), layout.includes, layout.version_header, layout.generation,
                     read_version(home))


# -- the command line -------------------------------------------------------------------------------
#
# Compared flag by flag with the vendor's builds of a dav-c220 vector-only kernel:
#   [K8] CANN 8.1.RC1 kernel-launch cmake: aarch64-linux/tikcpp/ascendc_kernel_cmake/bisheng_intf.cmake
#        (device_intf_pub + aiv_intf_pub) and device_project/CMakeLists.txt (github.com/leideng/CANN-8.1.RC1)
#   [K9] CANN 9 kernel-launch cmake: cmake/asc/legacy_modules/bisheng_intf.cmake (device_intf_pub +
#        c220_aiv_intf_pub) and device_project/CMakeLists.txt (github.com/cannmirror/asc-devkit)
#   [O8] CANN 8.1.RC1 operator compiler: python/site-packages/tbe/tikcpp/ascendc_compile_v220.py
#   [O9] CANN 9 operator compiler: tools/build/asc_op_compile_base/asc_op_compiler/ascendc_compile_v220.py
#        (_gen_compile_cmd_v220) and ascendc_compile_base.py
#   [PY] pyasc: python/asc/runtime/compiler.py (github.com/hicann/pyasc)
#
#   flag                                      K8   K9   O8   O9   PY   us
#   -c, -o <obj>                              yes  yes  yes  yes  yes  yes
#   -x cce                                    -    -    -    -    yes  yes   K8 calls the ascendc_compiler
#       wrapper on .cpp files; K9 says --cce-aicore-lang, documented as -xcce plus ccache support (bisheng
#       guide, CANN 8.2+ "编译选项"). Our file is kernel.cce and we use no ccache: -x cce works on both.
#   -O3 (opt_level)                           -O3  -O3  -O3  -O3  -O3  -O3 by default
#   -std=c++17                                yes  yes  yes  yes  yes  yes
#   --cce-aicore-arch=dav-c220-vec            yes  yes  yes  yes  yes  yes
#   --cce-aicore-only                         yes  yes  yes  yes  yes  yes
#   -I <headers>                              tikcfw x3 (K8); asc/ x15 + tikcfw x3 (K9): cann_layout.py
#   -include <version header>                 cann_version.h (K8, PY); asc_devkit_version.h (K9, O9)
#   --cce-disable-kernel-global-attr-check    yes  yes  yes  yes  yes  yes   (K: device_project; O8:
#       tbe/tikcpp/compile_op.py:1023; O9: ascendc_compile_base.py:62)
#   -mllvm -cce-aicore-stack-size=0x8000      yes  yes  yes  yes  yes  yes
#   -mllvm -cce-aicore-function-stack-size=0x8000  all                 yes
#   -mllvm -cce-aicore-dcci-insert-for-scalar=false all                yes
#   -mllvm -cce-aicore-record-overflow=       true true false false -  false, true with record_overflow
#   -mllvm -cce-aicore-addr-transform         yes  yes  yes  yes  -    yes
#   --cce-auto-sync                           on   on   on*  on*  opt  off unless auto_sync=False
#       (* the operator compilers add it unless the op's options say auto_sync false: tbe/tikcpp/
#       compile_op.py:913 in 8.1.RC1, asc_op_compiler/compile_op.py:1105 in CANN 9)
#   -mllvm -api-deps-filter                   -    -    with auto-sync      with auto-sync
#   -DTILING_KEY_VAR=0                        yes  yes  =<key>UL  =<key>UL  yes  yes  (one kernel, key 0)
#   -D__NPU_TILING__, -DASCENDC_DUMP=0        -    -    -    -    yes  yes   (pyasc's; harmless defines)
#   -mllvm -disable-machine-licm (retry)      -    -    -    -    yes  on the retry only, as pyasc
#
# The link is pyasc's, `ld.lld -m aicorelinux -Ttext=0 <obj> -static -o <elf>`. K8/K9's merge_obj.sh adds
# -r because their device.o is packed into a host binary afterwards; ours is loaded as it is.

# Where the overflow record of -cce-aicore-record-overflow=true goes: the kernel-launch cmake's host stub
# always appends an 8-byte `void* __ascendc_overflow` to the argument struct and points it at an 8-byte
# device buffer, and declares the matching trailing `GM_ADDR overflow_status` on the kernel (K8
# util/extract_host_stub.py: generate_args_declare_code, AllocAscendMemDevice(..., 8); K9
# cmake/asc/legacy_modules/util/extract_host_stub.py). The operator compilers pass =false and neither
# declare nor pass one. We do exactly one of the two: record_overflow=False (default) is the operator
# compilers' build, True is the cmake's (lower(graph, OVERFLOW_PARAM) declares the parameter and
# runtime/npu.py appends the pointer). False is the default because nothing reads the record on A2: the
# cmake's kernel reads it only under ASCENDC_DUMP && ASCENDC_DEBUG, through WriteBackOverflow, whose body
# acts only on __NPU_ARCH__ 1001/2002 (asc-devkit impl/basic_api/utils/kernel_utils_ceil_oom_que.h).
OVERFLOW_PARAM = "asc_trace_overflow_status"
OVERFLOW_STATUS_BYTES = 8


def sync_flags(auto_sync: bool) -> list[str]:
    """bisheng's own synchronisation, which follows `auto_sync`:
    - auto_sync=True (default): our scheduler has placed every set_flag/wait_flag/pipe_barrier the data
      dependences need, and the simulator checked that schedule. bisheng's auto-sync would add its own on
      top (the Ascend C guide warns that syncs inserted twice "may cause program logic anomalies or
      performance loss": asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/核内同步/关键特性说明.md),
      so it is turned off, and off explicitly rather than by leaving the flag out: CANN's own TBE kernel build
      passes --cce-auto-sync=off for Ascend910B (8.1.RC1 tbe/tvm/contrib/ccec.py:331; asc-devkit
      tools/build/asc_op_compile_base/common/ccec.py:337), and 8.1.RC1's autofuse kernels set it too
      (python/site-packages/autofuse/ascbc_kernel_compile.py:109), so bisheng 8.1 accepts the spelling.
    - auto_sync=False: the user writes the events, as in hand-written Ascend C, so the build is the
      vendor's own for hand-written kernels: auto-sync on, with pyasc's and the operator compilers'
      -api-deps-filter."""
    return ["--cce-auto-sync=off"] if auto_sync else ["--cce-auto-sync", "-mllvm", "-api-deps-filter"]


def compile_commands(tc: Toolchain, src: Path, obj: Path, elf: Path, options: dict[str, Any]) -> list[list[str]]:
    """The bisheng and ld.lld command lines for a vector-only (AIV) device binary."""
    opts = as_options(options)
    kernel_type = opts.kernel_type
    if kernel_type not in (None, "vector", "aiv", "KERNEL_TYPE_AIV_ONLY"):
        raise ToolchainError(f"kernel_type={kernel_type!r}: asc_trace builds vector-only kernels", None,
                             hint="leave kernel_type unset (KERNEL_TYPE_AIV_ONLY)")
    level = int(opts.opt_level)
    if not 0 <= level <= 3:
        raise ToolchainError(f"opt_level must be 0..3, got {level}", None)
    record_overflow = opts.record_overflow
    if not isinstance(record_overflow, bool):
        raise ToolchainError(f"record_overflow must be True or False, got {record_overflow!r}", None)
    cmd = [str(tc.bisheng), "-c", "-x", "cce", f"-O{level}", str(src), "--cce-aicore-arch=dav-c220-vec",
           "--cce-aicore-only", "-o", str(obj), "-std=c++17"]
    cmd += [f"-I{inc}" for inc in tc.includes]
    # asc_trace_prelude.h (its checks compile out on the device); -fwrapv: int64 scalar math wraps
    cmd += [f"-I{PRELUDE_DIR}", "-fwrapv"]
    if tc.version_header is not None:
        cmd += ["-include", str(tc.version_header)]
    cmd += ["--cce-disable-kernel-global-attr-check",
            "-mllvm", "-cce-aicore-stack-size=0x8000", "-mllvm", "-cce-aicore-function-stack-size=0x8000",
            # explicit, never the compiler default: the argument blob must agree with it (see above)
            "-mllvm", f"-cce-aicore-record-overflow={'true' if record_overflow else 'false'}",
            # Every CANN dav-c220 build passes this (K8, K9, O8, O9, and the TBE compiler for Ascend910B:
            # 8.1.RC1 tbe/tvm/contrib/ccec.py; asc-devkit common/ccec.py, asc_op_compiler/config/ascend910b.py);
            # pyasc alone does not. bisheng's option list does not document it. What its headers show: the
            # scalar unit reaches the Unified Buffer through a virtual window, get_sys_va_base() + 0x80000 +
            # offset, and when __CCE_NEED_ADDR_TRANS is set get_ub_virtual_address() has an empty body the
            # compiler fills in (8.1.RC1 ccec_compiler/lib/clang/15.0.5/include/__clang_cce_aicore_functions.h,
            # CCE_GET_VA_INTRINSIC in __clang_cce_aicore_intrinsics.h): the compiler transforms UB addresses
            # for scalar access. Ascend C's LocalTensor::GetValue/SetValue dereference the raw __ubuf__
            # address (basic_api/impl/kernel_tensor_impl.h), and our kernels emit both (graph/ops/scalar.py),
            # so we build them the way the vendor builds and tests those headers: with the transform.
            "-mllvm", "-cce-aicore-addr-transform",
            "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
            # no dump workspace: printf / dump_tensor are refused on the npu backend (npu.refuse_device_output)
            "-DASCENDC_DUMP=0", "-D__NPU_TILING__", "-DTILING_KEY_VAR=0"]
    cmd += sync_flags(bool(opts.auto_sync))
    link = [str(tc.ld_lld), "-m", "aicorelinux", "-Ttext=0", str(obj), "-static", "-o", str(elf)]
    return [cmd, link]


def build_device_binary(tc: Toolchain, graph: KernelGraph, source: str, workdir: Path,
                        options: dict[str, Any]) -> Path:
    """Compile and link `source` (the Ascend C of `graph`); a compiler error points at the user's line."""
    src = workdir / "kernel.cce"
    src.write_text(source)
    obj, elf = workdir / "kernel.o", workdir / "kernel.elf"
    compile_cmd, link_cmd = compile_commands(tc, src, obj, elf, options)
    for attempt, cmd in enumerate((compile_cmd, compile_cmd + ["-mllvm", "-disable-machine-licm"])):
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=workdir)
        if proc.returncode == 0:
            break
        if attempt == 1:   # pyasc retries once without machine LICM
            raise compiler_error("bisheng", graph, source, "kernel.cce", proc.stderr, full_output=True,
                                 hint="the source is kept under ASC_TRACE_DUMP_PATH when it is set")
    proc = subprocess.run(link_cmd, capture_output=True, text=True, check=False, cwd=workdir)
    if proc.returncode != 0:
        raise ToolchainError(f"ld.lld failed:\n{proc.stderr.strip()[:4000]}", None)
    return elf
