"""What a CANN toolkit tells us about itself: its release, where its Ascend C headers are, which
version header its own kernel builds pre-include, and where its runtime libraries live.

Every rule here was read in the toolkit's own files, not guessed (sources in each comment):
- CANN 8.x (`/usr/local/Ascend/ascend-toolkit/latest`, a tree of links into `<release>/`): the public
  text mirror of 8.1.RC1, github.com/leideng/CANN-8.1.RC1, under `Ascend/ascend-toolkit/`.
- CANN 9 (`/usr/local/Ascend/cann`): the open-source Ascend C kit github.com/cannmirror/asc-devkit
  (its cmake and `scripts/package/asc-devkit/asc-devkit.xml`, which says where each file is
  installed) and the open-source runtime github.com/hicann/runtime.
"""
from __future__ import annotations

import platform as _platform
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


def arch_dir(home: Path) -> Path:
    """`<home>/<arch>-linux`, the directory both generations keep their real files in."""
    return home / f"{_platform.machine()}-linux"


# -- the release ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CannVersion:
    text: str                    # the release as CANN spells it: "8.1.RC1", "8.5.0", "9.0.0-rc.1"
    numbers: tuple[int, ...]     # its leading numbers: (8, 1), (8, 5, 0), (9, 0, 0); () when unknown
    source: Path | None          # the file it was read from

    @staticmethod
    def parse(text: str, source: Path | None) -> "CannVersion":
        lead = re.match(r"\d+(?:\.\d+)*", text)
        return CannVersion(text, tuple(int(x) for x in lead.group(0).split(".")[:3]) if lead else (), source)


UNKNOWN_VERSION = CannVersion("unknown", (), None)


Reader = Callable[[str], "str | None"]


def _field(pattern: str) -> Reader:
    rx = re.compile(pattern, re.MULTILINE | re.IGNORECASE)
    return lambda text: (m.group(1) if (m := rx.search(text)) else None)


def _version_files(home: Path) -> list[tuple[Path, Reader]]:
    """Where the release is written, most authoritative first, each with the way to read it."""
    arch = arch_dir(home)
    install_infos = [arch / "ascend_toolkit_install.info"] + sorted(home.glob("*-linux/ascend_toolkit_install.info"))
    return [
        # `version=8.1.RC1` (8.1.RC1 mirror: 8.1.RC1/aarch64-linux/ascend_toolkit_install.info). This is the
        # file both generations' install guides tell users to `cat` to see the release (hicann/runtime
        # README.md "ascend_toolkit_install.info"; asc-devkit docs/zh/quick_start.md). `^version=` does not
        # match its `innerversion=` or `compatible_version=` lines.
        *[(f, _field(r"^version\s*=\s*\"?([0-9][^\"\s]*)")) for f in install_infos],
        # CANN 9 keeps one `share/info/<package>/version.info` per package whose `Version` is the release
        # (hicann/runtime docs/zh/api_ref/24_other_APIs.md, aclsysGetVersionStr; scripts/package/runtime/
        # runtime.xml installs it to share/info/runtime). CANN 8's `runtime/version.info` is not read:
        # its `Version=7.7.0.1.238` is the inner package number, not the release.
        (home / "share" / "info" / "runtime" / "version.info", _field(r"^version\s*=\s*\"?([0-9][^\"\s]*)")),
        # `#define CANN_VERSION_STR "8.1.RC1"` (8.1.RC1 mirror: aarch64-linux/include/version/cann_version.h)
        (home / "include" / "version" / "cann_version.h", _field(r"^#define\s+CANN_VERSION_STR\s+\"([^\"]+)\"")),
        # latest/version.cfg starts with `# version: 1.0` (the format of the file, not the release) and then
        # lists `<package>_running_version=[7.7.0.1.238:8.1.RC1]`: inner number, colon, release.
        (home / "version.cfg",
         _field(r"^(?:toolkit|runtime|compiler)_running_version\s*=\s*\[[^:\]]*:([^\]\s]+)\]")),
        # compiler/version.info: `Version=7.7.0.1.238` is the inner number; `version_dir=8.1.RC1` the release.
        (home / "compiler" / "version.info", _field(r"^version_dir\s*=\s*\"?([0-9][^\"\s]*)")),
        # CANN 9's Ascend C kit version (asc-devkit cmake/version.h.in, installed to include/version)
        (home / "include" / "version" / "asc_devkit_version.h",
         _field(r"^#define\s+ASC_DEVKIT_VERSION_STR\s+\"([^\"]+)\"")),
    ]


def read_version(home: Path) -> CannVersion:
    """The CANN release installed at `home`, from the first of the toolkit's files that names it."""
    for path, read in _version_files(home):
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        found = read(text)
        if found:
            return CannVersion.parse(found, path)
    return UNKNOWN_VERSION


# -- the Ascend C headers ---------------------------------------------------------------------------

# The include folders of the vendor's kernel build, relative to its ASCENDC_DEVKIT_PATH, in its order.
# CANN 8.x: 8.1.RC1 mirror, aarch64-linux/tikcpp/ascendc_kernel_cmake/bisheng_intf.cmake (device_intf_pub).
INCLUDES_8 = ("tikcpp/tikcfw", "tikcpp/tikcfw/interface", "tikcpp/tikcfw/impl")
# CANN 9: asc-devkit cmake/asc/legacy_modules/bisheng_intf.cmake (device_intf_pub): the asc/ tree that
# replaces tikcfw, then the three tikcfw links kept for older sources.
INCLUDES_9 = ("asc/impl/adv_api", "asc/impl/basic_api", "asc/impl/c_api", "asc/impl/basic_api/reg_compute",
              "asc/impl/simt_api", "asc/impl/utils", "asc", "asc/include", "asc/include/adv_api",
              "asc/include/basic_api", "asc/include/aicpu_api", "asc/include/c_api",
              "asc/include/basic_api/reg_compute", "asc/include/simt_api", "asc/include/utils") + INCLUDES_8


@dataclass(frozen=True)
class AscendCLayout:
    generation: int              # 8: the tikcfw tree; 9: the asc/ tree
    devkit: Path                 # the cmake's ASCENDC_DEVKIT_PATH
    includes: tuple[Path, ...]   # the -I folders that exist, in the cmake's order
    version_header: Path | None  # what the cmake pre-includes with `-include`, when the toolkit has it


def _devkit(home: Path) -> Path:
    """ASCENDC_DEVKIT_PATH as the vendor's bisheng_config.cmake picks it: the first folder holding
    ccec_compiler among <arch>-linux (CANN 9 only: asc-devkit cmake/asc/legacy_modules/
    bisheng_config.cmake), tools and compiler (both generations; 8.1.RC1 mirror bisheng_config.cmake)."""
    arch = arch_dir(home)
    if (arch / "ccec_compiler").is_dir() and (arch / "asc" / "include").is_dir():
        return arch
    for d in (home / "tools", home / "compiler"):
        if (d / "ccec_compiler").is_dir():
            return d
    return home / "compiler"


def ascendc_layout(home: Path) -> AscendCLayout:
    devkit = _devkit(home)
    # CANN 9 installs the real headers at <arch>-linux/asc/include (asc-devkit.xml: lib/host/asc/include ->
    # $(TARGET_ENV)/asc/include, with links compiler/asc and asc); CANN 8 has no asc/ tree.
    generation = 9 if (devkit / "asc" / "include").is_dir() else 8
    includes = tuple(devkit / rel for rel in (INCLUDES_9 if generation == 9 else INCLUDES_8) if (devkit / rel).is_dir())
    # The cmake pre-includes ${ASCENDC_DEVKIT_PATH}/../include/version/<header>, i.e. <home>/include/version:
    # cann_version.h on 8.x (8.1.RC1 bisheng_intf.cmake), asc_devkit_version.h on 9 (asc-devkit
    # bisheng_intf.cmake; asc-devkit.xml installs it to $(TARGET_ENV)/include/version).
    name = "asc_devkit_version.h" if generation == 9 else "cann_version.h"
    header = next((p for p in (home / "include" / "version" / name, arch_dir(home) / "include" / "version" / name)
                   if p.is_file()), None)
    return AscendCLayout(generation, devkit, includes, header)


def lib64(home: Path) -> Path:
    """The runtime libraries: `<home>/lib64` (set_env.sh puts it on LD_LIBRARY_PATH; a link to
    <arch>-linux/lib64, 8.1.RC1 runtime/script/filelist.csv), else <arch>-linux/lib64 itself."""
    return home / "lib64" if (home / "lib64").is_dir() else arch_dir(home) / "lib64"
