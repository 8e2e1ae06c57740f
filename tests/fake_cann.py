"""Fake CANN toolkits for the NPU-path tests, laid out like the real ones (the files, links and formats
were read in the real toolkits; nothing here is invented):

- CANN 8.x: `Ascend/ascend-toolkit/<release>/` with the real files under `<arch>-linux/`, and `latest/`
  holding `version.cfg` plus links into the release (github.com/leideng/CANN-8.1.RC1:
  `latest/version.cfg`, `<release>/<arch>-linux/ascend_toolkit_install.info`, `compiler/version.info`,
  `<arch>-linux/include/version/cann_version.h`; the links from `compiler/script/filelist.csv` and
  `runtime/script/filelist.csv`; 8.1.RC1 ships libascendcl.so and libruntime.so, no libacl_rt.so).
- CANN 9: `Ascend/cann-<release>/` and the `Ascend/cann` link, the Ascend C headers under
  `<arch>-linux/asc/` (github.com/cannmirror/asc-devkit `scripts/package/asc-devkit/asc-devkit.xml`,
  `cmake/version.h.in`), `share/info/runtime/version.info` (github.com/hicann/runtime).

bisheng and ld.lld are Python scripts that append their argv to `calls.jsonl`; bisheng also judges the
source as the real one of its generation would where we can (tests/fake_bisheng.py) and fails as it
would. The runtime libraries are compiled here from a small C file whose functions have the headers'
signatures and record what they were called with.
"""
from __future__ import annotations

import atexit
import json
import os
import platform
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

ARCH = f"{platform.machine()}-linux"

TOOL = """#!{python}
import json, sys
from pathlib import Path
Path({log!r}).open("a").write(json.dumps(sys.argv) + "\\n")
if "-c" in sys.argv:   # keep what bisheng was given (the build folder is renamed afterwards)
    src = next(a for a in sys.argv if a.endswith(".cce"))
    Path({log!r}).with_name("last_kernel.cce").write_text(Path(src).read_text())
    sys.path[:0] = {paths!r}
    import fake_bisheng
    errors = fake_bisheng.judge(Path(src).read_text(), {generation!r}, {headers!r})
    if errors:
        sys.stderr.write(errors)
        sys.exit(1)
if {fail!r} and "-c" in sys.argv:
    line = next(i for i, t in enumerate(Path(src).read_text().splitlines(), 1) if "AscendC::Add(" in t)
    sys.stderr.write(f"kernel.cce:{{line}}:9: error: something bisheng dislikes\\n")
    sys.exit(1)
out = sys.argv[sys.argv.index("-o") + 1]
Path(out).write_bytes(b"\\x7fELF fake device binary " + Path(sys.argv[-1] if "{name}" == "ld.lld" else out).name.encode())
"""

# The functions with the signatures of acl_rt.h / runtime/kernel.h; each records its arguments in globals
# the tests read back with ctypes. OMIT_<name> leaves a function out (a library that lacks it).
RUNTIME_C = r"""
#include <stdint.h>
#include <stddef.h>
#include <string.h>

unsigned char fake_blob[1024];
size_t fake_blob_size;
uint32_t fake_blocks;
void *fake_stream, *fake_cfg, *fake_ph, *fake_launched, *fake_stub;
size_t fake_ph_num;
int fake_launches, fake_loads;
int fake_fail_rc;
char fake_name[256], fake_stub_name[256];
uint32_t fake_magic, fake_bin_version;
int32_t fake_opt_type;
size_t fake_opt_num;
uint64_t fake_length;
unsigned char fake_elf_head[8];

static void record(void *f, uint32_t blocks, void *stream, const void *args, size_t size) {
    fake_launched = f; fake_blocks = blocks; fake_stream = stream; fake_blob_size = size; fake_launches++;
    memcpy(fake_blob, args, size < sizeof fake_blob ? size : sizeof fake_blob);
}

typedef struct { int32_t type; uint32_t value[4]; } aclrtBinaryLoadOption;
typedef struct { aclrtBinaryLoadOption *options; size_t numOpt; } aclrtBinaryLoadOptions;

#if !defined(OMIT_ACL) && !defined(OMIT_aclrtBinaryLoadFromData)
int aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options, void **bin) {
    fake_length = length; memcpy(fake_elf_head, data, length < 8 ? length : 8); fake_loads++;
    fake_opt_num = options->numOpt; fake_opt_type = options->options[0].type;
    fake_magic = options->options[0].value[0];
    *bin = (void *)0x1000;
    return 0;
}
#endif
#if !defined(OMIT_ACL) && !defined(OMIT_aclrtBinaryGetFunction)
int aclrtBinaryGetFunction(void *bin, const char *name, void **func) {
    if (bin != (void *)0x1000) return 107000;
    strncpy(fake_name, name, 255);
    *func = (void *)0x2000;
    return 0;
}
#endif
#if !defined(OMIT_ACL) && !defined(OMIT_aclrtLaunchKernelWithHostArgs)
int aclrtLaunchKernelWithHostArgs(void *func, uint32_t blocks, void *stream, void *cfg, void *args, size_t size,
                                  void *ph, size_t ph_num) {
    if (fake_fail_rc) return fake_fail_rc;
    if (func != (void *)0x2000) return 107000;
    fake_cfg = cfg; fake_ph = ph; fake_ph_num = ph_num;
    record(func, blocks, stream, args, size);
    return 0;
}
#endif
#ifndef OMIT_ACL
const char *aclGetRecentErrMsg(void) { return "EZ9999: fake kernel exception"; }
#endif

typedef struct { uint32_t magic; uint32_t version; const void *data; uint64_t length; } rtDevBinary_t;

#if !defined(OMIT_RT) && !defined(OMIT_rtDevBinaryRegister)
int32_t rtDevBinaryRegister(const rtDevBinary_t *bin, void **handle) {
    fake_magic = bin->magic; fake_bin_version = bin->version; fake_length = bin->length; fake_loads++;
    memcpy(fake_elf_head, bin->data, bin->length < 8 ? bin->length : 8);
    *handle = (void *)0x3000;
    return 0;
}
#endif
#if !defined(OMIT_RT) && !defined(OMIT_rtFunctionRegister)
int32_t rtFunctionRegister(void *handle, const void *stub, const char *stub_name, const void *info, uint32_t mode) {
    if (handle != (void *)0x3000 || mode != 0) return 107000;
    fake_stub = (void *)stub;
    strncpy(fake_stub_name, stub_name, 255);
    strncpy(fake_name, (const char *)info, 255);
    return 0;
}
#endif
#if !defined(OMIT_RT) && !defined(OMIT_rtKernelLaunch)
int32_t rtKernelLaunch(const void *stub, uint32_t blocks, void *args, uint32_t size, void *sm, void *stream) {
    if (fake_fail_rc) return fake_fail_rc;
    if (stub != fake_stub || sm != NULL) return 107000;
    record((void *)stub, blocks, stream, args, size);
    return 0;
}
#endif
"""


def _write_tool(path: Path, log: Path, fail: bool, generation: int) -> None:
    """bisheng / ld.lld of a toolkit of `generation`: bisheng judges the source it gets as that generation's
    bisheng would where we can (fake_bisheng.py), against the headers of that generation when they are here."""
    path.parent.mkdir(parents=True, exist_ok=True)
    paths = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]
    path.write_text(TOOL.format(python=sys.executable, log=str(log), fail=fail, name=path.name, paths=paths,
                                generation=generation, headers=fake_bisheng_headers(generation)))
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def fake_bisheng_headers(generation: int) -> str | None:
    """The real Ascend C headers a fake bisheng of `generation` checks against: asc-devkit for CANN 9 (the
    suite's ASC_TRACE_ASCENDC_HOME), a CANN 8.1.RC1 copy for CANN 8 (ASC_TRACE_CANN81_HOME); None when
    they are not here."""
    if generation == 8:
        return os.environ.get("ASC_TRACE_CANN81_HOME") or None
    home = os.environ.get("ASC_TRACE_ASCENDC_HOME")
    return home if home and (Path(home) / "include" / "kernel_operator.h").is_file() else None


_BUILT: dict[tuple[str, ...], Path] = {}


def build_library(path: Path, omit: tuple[str, ...] = ()) -> Path:
    """The recording runtime at `path`, without the functions (or groups ACL / RT) in `omit`; each variant
    is compiled once per test process and copied (a copy is a separate library to dlopen)."""
    if omit not in _BUILT:
        tmp = tempfile.mkdtemp(prefix="fake_cann_")
        atexit.register(shutil.rmtree, tmp, True)
        out = Path(tmp) / "lib.so"
        src = out.with_suffix(".c")
        src.write_text(RUNTIME_C)
        subprocess.run(["gcc", "-shared", "-fPIC", "-O0", "-o", str(out), str(src)] + [f"-DOMIT_{n}" for n in omit],
                       check=True, capture_output=True)
        _BUILT[omit] = out
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_BUILT[omit], path)
    return path


def _link(link: Path, target: str) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)


def _tools(arch: Path, root: Path, fail: bool, generation: int) -> None:
    for name in ("bisheng", "ld.lld"):
        _write_tool(arch / "ccec_compiler" / "bin" / name, root / "calls.jsonl", fail, generation)


def _arch_files(home: Path, header: str, header_text: str, libs: dict[str, tuple[str, ...]],
                install_info: str) -> None:
    """What both generations keep under <arch>-linux: include/version/<header> and lib64/ (each with a
    link from the home), and ascend_toolkit_install.info."""
    arch = home / ARCH
    (arch / "include" / "version").mkdir(parents=True)
    (arch / "include" / "version" / header).write_text(header_text)
    _link(home / "include", f"{ARCH}/include")
    for name, omit in libs.items():
        build_library(arch / "lib64" / name, omit)
    _link(home / "lib64", f"{ARCH}/lib64")
    (arch / "ascend_toolkit_install.info").write_text(install_info)


# 8.1.RC1: libascendcl.so without the ACL kernel-loading functions (its acl_rt.h declares none), libruntime.so
LIBS_81 = {"libascendcl.so": ("RT", "aclrtBinaryLoadFromData", "aclrtBinaryGetFunction",
                              "aclrtLaunchKernelWithHostArgs"), "libruntime.so": ("ACL",)}
# 8.5 and later: the ACL functions, in libacl_rt.so and (for compatibility) libascendcl.so
LIBS_ACL = {"libacl_rt.so": ("RT",), "libascendcl.so": ("RT",), "libruntime.so": ("ACL",)}


def cann8(root: Path, release: str = "8.1.RC1", inner: str = "7.7.0.1.238", libs: dict | None = None,
          fail: bool = False, header: bool = True) -> Path:
    """A CANN 8.x toolkit; returns `.../ascend-toolkit/latest` (what set_env.sh exports)."""
    top = root / "Ascend" / "ascend-toolkit"
    rel = top / release
    arch = rel / ARCH
    _tools(arch, root, fail, 8)
    _link(rel / "compiler" / "ccec_compiler", f"../{ARCH}/ccec_compiler")
    basic = arch / "ascendc" / "include" / "basic_api"
    (basic / "impl").mkdir(parents=True)
    (basic / "interface").mkdir()
    if header:
        (basic / "kernel_operator.h").write_text("// fake\n")
    for tik in (arch / "tikcpp" / "tikcfw", rel / "compiler" / "tikcpp" / "tikcfw"):
        up = "../../" if tik.is_relative_to(arch) else f"../../../{ARCH}/"
        for name in ("impl", "interface", "kernel_operator.h"):
            _link(tik / name, f"{up}ascendc/include/basic_api/{name}")
    _arch_files(rel, "cann_version.h",
                f'#ifndef CANN_VERSION_H\n#define CANN_VERSION_H\n\n#define CANN_VERSION_STR "{release}"\n'
                "#define CANN_VERSION ((9 * 100000000) + (2 * 1000000) + ((2 * 100) + 5000))\n"
                "#define CANN_TIMESTAMP 20250428203017761\n\n#endif /* CANN_VERSION_H */\n",
                LIBS_81 if libs is None else libs,
                f"package_name=Ascend-cann-toolkit\nversion={release}\ninnerversion=V100R001C21SPC001B238\n"
                "compatible_version=[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]\n"
                f"arch={platform.machine()}\nos=linux\npath=/usr/local/Ascend/ascend-toolkit/{release}/{ARCH}\n")
    for pkg in ("compiler", "runtime"):
        (rel / pkg).mkdir(exist_ok=True)
        (rel / pkg / "version.info").write_text(f"Version={inner}\nversion_dir={release}\n"
                                                "timestamp=20250428_203017761\n")
    latest = top / "latest"
    latest.mkdir()
    lines = ["# version: 1.0"] + [f"{pkg}_{kind}_version=[{inner}:{release}]" for kind in ("running", "upgrade",
                                  "installed") for pkg in ("runtime", "compiler", "hccl", "opp", "toolkit")]
    (latest / "version.cfg").write_text("\n".join(lines) + "\n")
    for name in ("compiler", "runtime", ARCH, "include", "lib64"):
        _link(latest / name, f"../{release}/{name}")
    return latest


def cann9(root: Path, release: str = "9.0.0", libs: dict | None = None, fail: bool = False) -> Path:
    """A CANN 9 toolkit; returns `.../Ascend/cann` (what its set_env.sh exports)."""
    home = root / "Ascend" / f"cann-{release}"
    arch = home / ARCH
    _tools(arch, root, fail, 9)
    _link(home / "compiler" / "ccec_compiler", f"../{ARCH}/ccec_compiler")
    asc = arch / "asc"
    for rel in ("include/adv_api", "include/basic_api/reg_compute", "include/aicpu_api", "include/c_api",
                "include/simt_api", "include/utils", "include/interface", "impl/adv_api",
                "impl/basic_api/reg_compute", "impl/c_api", "impl/simt_api", "impl/utils"):
        (asc / rel).mkdir(parents=True, exist_ok=True)
    (asc / "include" / "kernel_operator.h").write_text("// fake\n")
    (arch / "ascendc" / "include" / "basic_api" / "impl").mkdir(parents=True)
    tik = arch / "tikcpp" / "tikcfw"
    _link(tik / "kernel_operator.h", "../../asc/include/kernel_operator.h")
    _link(tik / "interface", "../../asc/include/interface")
    _link(tik / "impl", "../../ascendc/include/basic_api/impl")
    _link(home / "compiler" / "asc", f"../{ARCH}/asc")
    _link(home / "compiler" / "tikcpp", f"../{ARCH}/tikcpp")
    _link(home / "asc", f"{ARCH}/asc")
    major, minor, patch = release.split("-")[0].split(".")
    _arch_files(home, "asc_devkit_version.h",
                "#ifndef ASC_DEVKIT_VERSION_H\n#define ASC_DEVKIT_VERSION_H\n\n"
                f'#define ASC_DEVKIT_VERSION_STR "{release}"\n#define ASC_DEVKIT_MAJOR {major}\n'
                f"#define ASC_DEVKIT_MINOR {minor}\n#define ASC_DEVKIT_PATCH {patch}\n"
                '#define ASC_DEVKIT_PRERELEASE ""\n#define ASC_DEVKIT_VERSION_NUM 90000000\n'
                "#define ASC_DEVKIT_TIMESTAMP 202601\n#endif // ASC_DEVKIT_VERSION_H\n",
                LIBS_ACL if libs is None else libs,
                f"package_name=Ascend-cann-toolkit\nversion={release}\narch={platform.machine()}\nos=linux\n"
                f"path=/usr/local/Ascend/cann-{release}/{ARCH}\n")
    info = home / "share" / "info" / "runtime"
    info.mkdir(parents=True)
    (info / "version.info").write_text(f"Version={release}\n")
    cann = root / "Ascend" / "cann"
    _link(cann, f"cann-{release}")
    return cann


def last_source(root: Path) -> str:
    return (root / "last_kernel.cce").read_text()


def calls(root: Path) -> list[list[str]]:
    log = root / "calls.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
