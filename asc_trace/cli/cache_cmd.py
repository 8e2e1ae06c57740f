"""`asc-trace cache list | clear`: the disk cache of built kernels (host libraries, NPU binaries)."""
from __future__ import annotations

import argparse
import json
import time
from typing import Any

from .. import config
from ..toolchain import cache
from .common import add_command
from .info import count_text, size_text


def add_parser(sub: Any) -> None:
    p = add_command(sub, "cache", help="list or clear the compile cache",
                    description="The disk cache of built kernels, in ASC_TRACE_CACHE_DIR (default "
                                "$ASC_TRACE_HOME/cache, ~/.asc_trace/cache). Traced graphs are not cached on disk; "
                                "the cpp and npu backends' builds are.")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    ls = add_command(actions, "list", help="one line per cached build: key, kernel, backend, size, age")
    ls.add_argument("--json", action="store_true", help="print the entries as a JSON list")
    ls.set_defaults(run=run_list)
    add_command(actions, "clear", help="delete every cached build (only files the cache wrote)").set_defaults(
        run=run_clear)


def _age(seconds: float) -> str:
    for unit, span in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= span:
            return f"{seconds / span:.0f} {unit}"
    return f"{seconds:.0f} s"


def run_list(args: argparse.Namespace) -> int:
    root = config.cache_dir()
    found = cache.entries(root, verify=True) if root.is_dir() else []
    if args.json:
        print(json.dumps([{"key": e.key, "path": str(e.path), "artifact": e.artifact, "bytes": e.size,
                           "mtime": e.mtime, "complete": e.complete,
                           **{k: e.text(k) for k in ("kernel", "backend", "asc_trace")}}
                          for e in found], indent=2))
        return 0
    print(f"{root}: {count_text(len(found))}, {size_text(cache.disk_usage(root))}")
    if found:
        print(f"  {'key':<12}  {'kernel':<24} {'backend':<8} {'artifact':<11} {'size':>9}  age")
        now = time.time()
        for e in found:
            kernel = (e.text("kernel") or e.text("kernels") or e.text("kind") or "?") if e.complete else "(incomplete)"
            print(f"  {e.key[:12]}  {kernel:<24} {e.text('backend') or '?':<8} {e.artifact or '-':<11} "
                  f"{size_text(e.size):>9}  {_age(now - e.mtime)}")
    return 0


def run_clear(args: argparse.Namespace) -> int:
    root = config.cache_dir()
    removed, freed = cache.clear(root) if root.is_dir() else (0, 0)
    print(f"removed {count_text(removed)} ({size_text(freed)}) from {root}")
    return 0
