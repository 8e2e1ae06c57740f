"""The disk cache of compiled artifacts (host shared libraries, NPU device binaries).

Key: sha256 of everything the artifact depends on (the scheduled graph's dump or the emitted source,
the options, asc_trace's version, the toolchain's identity). Entries live in
`ASC_TRACE_CACHE_DIR` (default `$ASC_TRACE_HOME/cache`, `~/.asc_trace/cache`). Writes go to a
temporary file that is renamed into place, under a per-key file lock, so two processes compiling
the same kernel at once do not corrupt each other; an entry whose checksum does not match is
rebuilt, never trusted. `ASC_TRACE_DUMP_PATH` receives the graph, the schedule and the source of
every compilation.
"""
from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from .. import config
from .._version import __version__


def cache_key(parts: dict[str, Any]) -> str:
    blob = json.dumps({"asc_trace": __version__, **parts}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def read_meta(path: Path) -> dict[str, Any]:
    """An entry's meta.json as a dict; {} when it is missing, unreadable, truncated or not a JSON object
    (such an entry is incomplete: rebuilt on lookup, listed as incomplete)."""
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError):          # ValueError covers bad JSON and bad UTF-8
        return {}
    return info if isinstance(info, dict) else {}


def _intact(art: Path, info: dict[str, Any]) -> bool:
    """The artifact exists and its checksum is the one its meta.json records (a string of 64 hex digits)."""
    want = info.get("sha256")
    if not (isinstance(want, str) and art.is_file()):
        return False
    try:
        return want == _sha(art)
    except OSError:
        return False


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class CompileCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(root) if root is not None else config.cache_dir()

    def entry(self, key: str) -> Path:
        return self.root / key[:2] / key

    def lookup(self, key: str, name: str) -> Path | None:
        """The artifact if a complete, uncorrupted entry exists."""
        d = self.entry(key)
        art = d / name
        return art if _intact(art, read_meta(d / "meta.json")) else None

    def get_or_build(self, key: str, name: str, build: Callable[[Path], Path], always: bool = False,
                     meta: dict[str, Any] | None = None) -> tuple[Path, bool]:
        """(artifact path, True if it was built now). `build(tmpdir)` returns the artifact it made."""
        if not always:
            hit = self.lookup(key, name)
            if hit is not None:
                return hit, False
        d = self.entry(key)
        with _locked(self.root / "locks" / f"{key}.lock"):
            if not always:
                hit = self.lookup(key, name)    # another process may have built it meanwhile
                if hit is not None:
                    return hit, False
            d.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=d, prefix=".build-") as tmp:
                made = build(Path(tmp))
                staged = Path(tmp) / f".{name}.tmp"
                os.replace(made, staged)
                with open(staged, "rb+") as f:
                    os.fsync(f.fileno())
                info = {"sha256": _sha(staged), "asc_trace": __version__, **(meta or {})}
                meta_tmp = Path(tmp) / ".meta.json.tmp"
                meta_tmp.write_text(json.dumps(info, sort_keys=True, default=str))
                os.replace(staged, d / name)
                os.replace(meta_tmp, d / "meta.json")
            return d / name, True


@dataclass(frozen=True)
class CacheEntry:
    """One cached artifact as `asc-trace cache list` shows it."""

    key: str
    path: Path
    artifact: str          # file name: kernel.so, kernel.elf, ...
    meta: dict[str, Any]   # what the build recorded: kernel, backend, asc_trace version, sha256 ({} if unreadable)
    size: int              # bytes of the entry's folder
    mtime: float
    complete: bool = True  # meta.json readable and the artifact's checksum matches it (else rebuilt on use)

    def text(self, field: str) -> str | None:
        """A meta field shown by `cache list`: a string, or a list of strings joined; None for anything else."""
        value = self.meta.get(field)
        if isinstance(value, str):
            return value
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            return ",".join(value)
        return None


def _is_key(name: str) -> bool:
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def _tree_size(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_size
    return total


def entries(root: Path | None = None, verify: bool = False) -> list[CacheEntry]:
    """The entries under the cache root (newest first); folders that are not entries are left out.
    `verify` checksums every artifact (what `cache list` shows); otherwise `complete` only says that
    meta.json is a readable object with a checksum."""
    root = Path(root) if root is not None else config.cache_dir()
    out = []
    for prefix in sorted(root.glob("[0-9a-f][0-9a-f]")):
        for d in prefix.iterdir():
            if not (d.is_dir() and _is_key(d.name) and d.name[:2] == prefix.name):
                continue
            meta = read_meta(d / "meta.json")
            try:
                arts = sorted(p.name for p in d.iterdir() if p.is_file() and p.name != "meta.json")
                mtime = d.stat().st_mtime
            except OSError:                  # removed meanwhile (a concurrent `cache clear`)
                continue
            art = arts[0] if arts else ""
            complete = bool(art) and (_intact(d / art, meta) if verify else isinstance(meta.get("sha256"), str))
            out.append(CacheEntry(d.name, d, art, meta, _tree_size(d), mtime, complete))
    return sorted(out, key=lambda e: -e.mtime)


def disk_usage(root: Path | None = None) -> int:
    root = Path(root) if root is not None else config.cache_dir()
    return _tree_size(root) if root.is_dir() else 0


def clear(root: Path | None = None) -> tuple[int, int]:
    """Delete every cache entry and lock file: (entries removed, bytes freed). Only what the cache
    wrote is touched, so a cache directory pointed at a folder with other files keeps them."""
    root = Path(root) if root is not None else config.cache_dir()
    removed = freed = 0
    for e in entries(root):
        with _locked(root / "locks" / f"{e.key}.lock"):
            shutil.rmtree(e.path, ignore_errors=True)
        removed, freed = removed + 1, freed + e.size
    for prefix in root.glob("[0-9a-f][0-9a-f]"):
        with contextlib.suppress(OSError):
            prefix.rmdir()           # only if now empty
    locks = root / "locks"
    if locks.is_dir():
        for f in locks.glob("*.lock"):
            if _is_key(f.stem):
                with contextlib.suppress(OSError):
                    freed += f.stat().st_size
                    f.unlink()
        with contextlib.suppress(OSError):
            locks.rmdir()
    return removed, freed


def dump_compilation(name: str, key: str, files: dict[str, str]) -> Path | None:
    """Write `files` (graph.txt, scheduled.txt, kernel.cpp, ...) under ASC_TRACE_DUMP_PATH."""
    root = config.dump_dir()
    if root is None:
        return None
    d = root / f"{name}_{key[:12]}"
    d.mkdir(parents=True, exist_ok=True)
    for fname, text in files.items():
        tmp = d / f".{fname}.tmp"
        tmp.write_text(text)
        os.replace(tmp, d / fname)
    return d
