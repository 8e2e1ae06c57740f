"""Issue 25: a damaged disk cache. Damage inside an entry (which only the cache writes) is rebuilt; a path the
cache needs that is in the way (ASC_TRACE_HOME a file, cache/locks a file) is a CacheError naming it; and
`asc-trace cache list` never crashes. Each test failed before its fix with a raw Python exception."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.cli import main
from asc_trace.toolchain import cache as cache_mod

DEEP = "[" * 100_000 + "]" * 100_000          # valid JSON, past the reader's recursion limit


def _build(d: Path) -> Path:
    (d / "kernel.so").write_bytes(b"artifact")
    return d / "kernel.so"


def _entry(root: Path) -> tuple[cache_mod.CompileCache, str]:
    c = cache_mod.CompileCache(root)
    key = cache_mod.cache_key({"test": "cache damage"})
    _, built = c.get_or_build(key, "kernel.so", _build, meta={"kernel": "k", "backend": "cpp"})
    assert built
    return c, key


def _list(capsys) -> tuple[int, str, str]:
    code = main(["cache", "list"])
    out, err = capsys.readouterr()
    assert main(["cache", "list", "--json"]) == code
    capsys.readouterr()
    return code, out, err


def _as_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "inside").write_text("x")


DAMAGE = {
    "meta.json nested 100000 deep": lambda d: (d / "meta.json").write_text(DEEP),
    "meta.json a folder": lambda d: _as_folder(d / "meta.json"),
    "kernel.so a folder": lambda d: _as_folder(d / "kernel.so"),
    "meta.json and kernel.so folders": lambda d: (_as_folder(d / "meta.json"), _as_folder(d / "kernel.so")),
    "the entry a file": lambda d: (shutil.rmtree(d), d.write_text("x")),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_entry_is_rebuilt_and_listed(capsys, monkeypatch, tmp_path, damage):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c, key = _entry(root)
    DAMAGE[damage](c.entry(key))
    assert c.lookup(key, "kernel.so") is None
    code, out, err = _list(capsys)
    assert code == 0 and err == ""
    path, built = c.get_or_build(key, "kernel.so", _build, meta={"kernel": "k", "backend": "cpp"})
    assert built and path.read_bytes() == b"artifact"
    assert c.lookup(key, "kernel.so") == path
    code, out, _ = _list(capsys)
    assert code == 0 and key[:12] in out and "(incomplete)" not in out


def test_a_stray_file_in_an_entry_is_not_its_artifact(capsys, monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c, key = _entry(root)
    (c.entry(key) / "junk.txt").write_text("left here by hand")
    (entry,) = cache_mod.entries(root, verify=True)
    assert entry.artifact == "kernel.so" and entry.complete


def test_a_file_named_like_a_prefix_folder_does_not_break_cache_list(capsys, monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c, key = _entry(root)
    (root / "ab").write_text("a user's file")
    code, out, err = _list(capsys)
    assert code == 0 and err == "" and key[:12] in out
    assert main(["cache", "clear"]) == 0
    assert (root / "ab").read_text() == "a user's file"          # never deleted: the cache did not write it


@pytest.mark.parametrize("blocked", ["home", "cache", "locks", "prefix"])
def test_a_path_in_the_way_is_a_cache_error_naming_it(capsys, monkeypatch, tmp_path, blocked):
    home = tmp_path / "home"
    monkeypatch.delenv("ASC_TRACE_CACHE_DIR", raising=False)
    monkeypatch.setenv("ASC_TRACE_HOME", str(home))
    root = home / "cache"
    key = cache_mod.cache_key({"test": "blocked"})
    target = {"home": home, "cache": root, "locks": root / "locks", "prefix": root / key[:2]}[blocked]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("a user's file")
    with pytest.raises(asc.CacheError) as info:
        cache_mod.CompileCache().get_or_build(key, "kernel.so", _build)
    assert f"{target} is a file where a folder is needed" in str(info.value)
    assert "ASC_TRACE_CACHE_DIR" in str(info.value)                # the hint says what to do
    assert info.value.loc is not None and info.value.loc.file == __file__
    assert target.read_text() == "a user's file"
    code, out, err = _list(capsys)
    assert code == 0 and err == ""


def test_a_cpp_launch_with_asc_trace_home_a_file_is_a_cache_error(monkeypatch, tmp_path):
    home = tmp_path / "home"
    home.write_text("x")
    monkeypatch.delenv("ASC_TRACE_CACHE_DIR", raising=False)
    monkeypatch.setenv("ASC_TRACE_HOME", str(home))

    @asc.jit(backend="cpp")
    def plus_one(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, 64)
        zg.set_global_buffer(z, 64)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, 1.0, 64)
        asc.data_copy(zg, t, 64)

    x = np.zeros(64, np.float32)
    with pytest.raises(asc.CacheError, match="is a file where a folder is needed"):
        plus_one[1](x, np.zeros_like(x))


def test_a_dump_path_that_is_a_file_is_a_cache_error(monkeypatch, tmp_path):
    import vadd
    dump = tmp_path / "dump"
    dump.write_text("x")
    monkeypatch.setenv("ASC_TRACE_DUMP_PATH", str(dump))
    x = np.zeros(8 * 256, np.float32)
    with pytest.raises(asc.CacheError, match="ASC_TRACE_DUMP_PATH"):
        asc.compile(asc.jit(vadd.vadd_kernel, always_compile=True), (x, x, x, 256))


def test_meta_of_an_entry_names_its_artifact(tmp_path):
    c, key = _entry(tmp_path)
    assert json.loads((c.entry(key) / "meta.json").read_text())["artifact"] == "kernel.so"


def test_autotune_on_the_simulator_tunes_with_an_unusable_cache(monkeypatch, tmp_path):
    """The cache only remembers the choice there: losing it is a warning, not a failed launch."""
    from test_api_misuse import tiled
    home = tmp_path / "home"
    home.write_text("x")
    monkeypatch.delenv("ASC_TRACE_CACHE_DIR", raising=False)
    monkeypatch.setenv("ASC_TRACE_HOME", str(home))
    x = np.arange(1024, dtype=np.float32)
    z = np.zeros_like(x)
    tuned = asc.autotune(tiled, configs=[asc.Config(core_num=1, tile=256), asc.Config(core_num=1, tile=512)],
                         key=["n"])
    with pytest.warns(UserWarning, match="could not store the choice"):
        tuned(x, z, 1024)
    assert np.array_equal(z, x) and tuned.best_config is not None
