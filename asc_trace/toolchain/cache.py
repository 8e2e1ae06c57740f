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
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from .. import config
from .._version import __version__
from ..errors import CacheError
from ..graph.source_loc import UNKNOWN_LOC, SourceLoc
from ..proxies.source_loc import is_internal, loc_of_frame

# What a CacheError tells the user to do: the cache is theirs to point elsewhere, and asc_trace never deletes a
# file it did not write.
_HINT = ("remove or rename it, or point ASC_TRACE_CACHE_DIR (or ASC_TRACE_HOME) at a folder you can write; "
         "`python -m asc_trace cache clear` removes only what the cache wrote")


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
    """An entry's meta.json as a dict; {} when it is missing, unreadable (a folder, say), truncated, nested
    past the JSON reader's depth or not a JSON object (such an entry is incomplete: rebuilt on lookup,
    listed as incomplete)."""
    if not path.is_file():      # a folder, or a FIFO, whose open() would wait for a writer forever (x36)
        return {}
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):   # ValueError covers bad JSON and bad UTF-8
        return {}
    return info if isinstance(info, dict) else {}


def _blocker(path: Path) -> Path | None:
    """The first existing path on the way to `path` (from the root down) that is not a folder."""
    for p in (*reversed(path.parents), path):
        if p.exists() and not p.is_dir():
            return p
    return None


_STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep


def _caller_loc() -> SourceLoc:
    """The user's line that reached the cache: the first frame outside asc_trace and the standard library
    (the lock is a contextlib context manager)."""
    f = sys._getframe(1)
    while f is not None and (is_internal(f.f_code.co_filename)
                             or os.path.realpath(f.f_code.co_filename).startswith(_STDLIB)):
        f = f.f_back
    return loc_of_frame(f) if f is not None else UNKNOWN_LOC


def unusable(path: Path, err: OSError, what: str = "the compile cache", hint: str = _HINT) -> CacheError:
    """The clear error for a cache path that cannot be made or written (`err` is what the OS said)."""
    blocker = _blocker(path)
    why = (f"{blocker} is a file where a folder is needed" if blocker is not None
           else f"{err.filename or path} cannot be written ({err.strerror or type(err).__name__})")
    return CacheError(f"{what} cannot be used: {why}", loc=_caller_loc(), hint=hint)


def ensure_folder(path: Path, what: str = "the compile cache", hint: str = _HINT) -> Path:
    """`path` as a folder (made with its parents), or a CacheError naming what is in the way."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise unusable(path, e, what, hint) from None
    return path


def clear_way(path: Path) -> None:
    """Remove a folder (or anything not a regular file) standing where the cache writes a file: a damaged
    entry's artifact or meta.json. Only paths inside an entry, which the cache alone writes, come here."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() and not path.is_file():
        path.unlink()


def generated_header_dir(root: Path, name: str, text: str) -> Path:
    """A folder under `root` holding `text` as the header `name`, named by the text's digest so that each
    version of a generated header has its own; written only when missing or different (the cache may be
    cleared or damaged between builds), and atomically, so a concurrent build never reads half a header."""
    d = ensure_folder(root / hashlib.sha256(text.encode()).hexdigest()[:16])
    path = d / name
    try:
        current = path.is_file() and path.read_text() == text
    except (OSError, ValueError):       # unreadable or not UTF-8: written again below
        current = False
    if not current:
        clear_way(path)                 # a damaged cache may hold a folder there
        tmp = d / f".{name}.{os.getpid()}"
        try:
            tmp.write_text(text)
            os.replace(tmp, path)
        except OSError as e:
            raise unusable(d, e) from None
    return d


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
    ensure_folder(path.parent)
    try:
        lock = open(path, "a+")
    except OSError as e:
        raise unusable(path, e) from None
    with lock:
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
            try:
                self._make_entry(d, name)
                building = tempfile.TemporaryDirectory(dir=d, prefix=".build-", ignore_cleanup_errors=True)
            except OSError as e:
                raise unusable(d, e) from None
            with building as tmp:
                made = build(Path(tmp))          # the builder's own errors are its to report
                try:
                    self._install(Path(tmp), made, d, name, meta)
                except OSError as e:
                    raise unusable(d, e) from None
            return d / name, True

    def _make_entry(self, d: Path, name: str) -> None:
        """The entry's folder, ready to receive `name` and meta.json: whatever a damaged entry left in their
        place (the entry a file, the artifact or meta.json a folder) is removed; the entry's path is named by
        its key, so only the cache writes there."""
        if d.exists() and not d.is_dir():
            d.unlink()
        ensure_folder(d)
        clear_way(d / name)
        clear_way(d / "meta.json")

    @staticmethod
    def _install(tmp: Path, made: Path, d: Path, name: str, meta: dict[str, Any] | None) -> None:
        """Move the artifact and then its meta.json into the entry, each by an atomic rename."""
        staged = tmp / f".{name}.tmp"
        os.replace(made, staged)
        with open(staged, "rb+") as f:
            os.fsync(f.fileno())
        info = {"sha256": _sha(staged), "asc_trace": __version__, **(meta or {}), "artifact": name}
        meta_tmp = tmp / ".meta.json.tmp"
        meta_tmp.write_text(json.dumps(info, sort_keys=True, default=str))
        os.replace(staged, d / name)
        os.replace(meta_tmp, d / "meta.json")


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
        try:
            found = sorted(prefix.iterdir()) if prefix.is_dir() else []
        except OSError:                      # unreadable, or removed meanwhile
            continue
        for d in found:
            if not (d.is_dir() and _is_key(d.name) and d.name[:2] == prefix.name):
                continue
            meta = read_meta(d / "meta.json")
            try:
                arts = sorted(p.name for p in d.iterdir()
                              if p.is_file() and p.name != "meta.json" and not p.name.startswith("."))
                mtime = d.stat().st_mtime
            except OSError:                  # removed meanwhile (a concurrent `cache clear`)
                continue
            named = meta.get("artifact")     # recorded since the build names it; a stray file is not it
            art = named if isinstance(named, str) and named in arts else (arts[0] if arts else "")
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
    what, hint = "the dump folder (ASC_TRACE_DUMP_PATH)", "point ASC_TRACE_DUMP_PATH at a folder you can write"
    ensure_folder(d, what, hint)
    try:
        for fname, text in files.items():
            tmp = d / f".{fname}.tmp"
            tmp.write_text(text)
            os.replace(tmp, d / fname)
    except OSError as e:
        raise unusable(d, e, what, hint) from None
    return d
