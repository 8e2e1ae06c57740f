"""Lay out a local copy of CANN 8.1.RC1's Ascend C headers for the tests that check against them.

asc_trace cannot ship CANN 8.1.RC1's headers; the tests that need them run when ASC_TRACE_CANN81_HOME
names a toolkit home holding `compiler/tikcpp/tikcfw` (an installed toolkit's
`/usr/local/Ascend/ascend-toolkit/8.1.RC1`, or a copy made by this script) and skip otherwise.

    python tests/cann81_local_copy.py <checkout of github.com/leideng/CANN-8.1.RC1> <destination>
    export ASC_TRACE_CANN81_HOME=<destination>/8.1.RC1

The public mirror keeps the files but not the installer's links: this copies the Ascend C include tree,
bisheng's force-included headers and the version files of the aarch64 package, and makes the
`compiler/tikcpp/tikcfw` links the installer makes (compiler/script/filelist.csv lists them)."""
from __future__ import annotations

import csv
import shutil
import sys
from pathlib import Path

RELEASE = "Ascend/ascend-toolkit/8.1.RC1"
COPY = ("aarch64-linux/ascendc/include", "aarch64-linux/ccec_compiler/lib/clang/15.0.5/include",
        "aarch64-linux/include/version", "aarch64-linux/ascend_toolkit_install.info")


def make(checkout: Path, dest: Path) -> Path:
    src = checkout / RELEASE
    home = dest / "8.1.RC1"
    for rel in COPY:
        s, d = src / rel, home / rel
        d.parent.mkdir(parents=True, exist_ok=True)
        if s.is_dir():
            shutil.copytree(s, d, dirs_exist_ok=True)
        else:
            shutil.copyfile(s, d)
    with open(src / "compiler" / "script" / "filelist.csv", newline="") as f:
        for row in csv.reader(f):
            # columns: module, operation, source, target, ..., link targets of the compiler package (15th)
            if len(row) > 14 and row[14].startswith("compiler/tikcpp/tikcfw/"):
                link, target = home / row[14], home / row[3]
                link.parent.mkdir(parents=True, exist_ok=True)
                if not link.is_symlink() and target.exists():
                    link.symlink_to(target)
    return home


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(make(Path(sys.argv[1]), Path(sys.argv[2])))
