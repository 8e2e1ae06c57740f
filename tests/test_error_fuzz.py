"""Issue 25: a differential fuzz over the error paths. Random misuse of the public launch API, the tuning API
and the command line, and random corruption of cache entries: no raw exception leaves the package (only
asc_trace's error classes), and every backend refuses a bad launch with the same class.

Derandomized (a fixed seed per case) and suite-fast; `pytest -m fuzz tests/test_error_fuzz.py` runs the
larger sweep (more cases, and the cpp backend too)."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.cli import main as cli_main
from asc_trace.errors import AscTraceError
from asc_trace.toolchain import cache as cache_mod

SMALL, LARGE = 60, 600
pytestmark = pytest.mark.fuzz      # selected by `-m fuzz`, which also makes the sweep larger


def _sweep(request) -> int:
    return LARGE if "fuzz" in (request.config.getoption("-m") or "") else SMALL


@asc.jit
def _axpy(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, alpha: float, tile: asc.ConstExpr[int]):
    base = asc.get_block_idx() * n
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + base, n)
    zg.set_global_buffer(z + base, n)
    t = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, tile)
    for i in range(n // tile):
        asc.data_copy(t, xg[i * tile:], tile)
        asc.muls(t, t, alpha, tile)
        asc.data_copy(zg[i * tile:], t, tile)


def _arrays(rng: random.Random) -> object:
    return rng.choice([
        np.ones(256, np.float32), np.ones(256, np.float16), np.ones(256, np.int8), np.ones(256, np.float64),
        np.ones(256, np.complex64), np.ones(256, bool), np.ones((16, 16), np.float32),
        np.ones(512, np.float32)[::2], np.ones(0, np.float32), np.ones(7, np.float32), np.array(3.0, np.float32),
        None, "x", [1.0, 2.0], 3, object(), np.ones(256, object),
    ])


_INTS = [0, 1, -1, 8, 64, 256, 257, 2 ** 31, 2 ** 63, -(2 ** 63) - 1, 10 ** 400, True, 1.5, math.nan, None, "8",
         [8], np.int64(64), np.uint64(2 ** 64 - 1), np.float32(8.0)]
_FLOATS = [0.0, 1.5, -2.0, math.nan, math.inf, -math.inf, 10 ** 400, -(10 ** 309), 2 ** 200, 1e300, None, "1.0",
           [1.0], True, np.float64(1e39), complex(1, 1), np.int8(3)]
_TILES = [64, 32, 8, 0, -8, 7, 4096, 100000, None, 1.5, "64", (64,), [64]]
_CORES = [1, 2, 0, -1, 65536, 2 ** 70, 1.0, None, "2", True, (1,), np.int32(2)]


def _launch_case(rng: random.Random) -> tuple:
    x = _arrays(rng) if rng.random() < 0.5 else np.ones(256, np.float32)
    z = _arrays(rng) if rng.random() < 0.3 else np.zeros(256, np.float32)
    n = rng.choice(_INTS) if rng.random() < 0.6 else 64
    alpha = rng.choice(_FLOATS) if rng.random() < 0.5 else 2.0
    tile = rng.choice(_TILES) if rng.random() < 0.4 else 64
    cores = rng.choice(_CORES) if rng.random() < 0.3 else 1
    return cores, (x, z, n, alpha, tile)


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def _outcome(backend: str, cores, args) -> str:
    """The class name of what the launch raised ('ok' when it ran); a raw exception fails the test."""
    try:
        asc.jit(_axpy, backend=backend)[cores](*(_copy(a) for a in args))
    except AscTraceError as e:
        return type(e).__name__
    except Exception as e:  # noqa: BLE001 - the point of the fuzz
        pytest.fail(f"{backend}: raw {type(e).__name__} escaped for core_num={cores!r} args={args!r}: {e}")
    return "ok"


@pytest.mark.filterwarnings("ignore::asc_trace.AscTraceWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_random_misuse_of_a_launch_is_one_error_class_on_every_backend(request):
    backends = ["sim", "eager"] + (["cpp"] if _sweep(request) == LARGE else [])
    rng = random.Random(25)
    seen: set[str] = set()
    for _ in range(_sweep(request)):
        cores, args = _launch_case(rng)
        got = {b: _outcome(b, cores, args) for b in backends}
        assert len(set(got.values())) == 1, f"backends disagree on core_num={cores!r} args={args!r}: {got}"
        seen.add(next(iter(got.values())))
    assert len(seen) >= 2          # the sweep reached more than one kind of outcome


_API_CALLS = [
    lambda v: asc.compile(_axpy, v, core_num=1),
    lambda v: asc.compile(v, (np.ones(8, np.float32),), core_num=1),
    lambda v: asc.profile(_axpy, v, np.zeros(256, np.float32), 64, 2.0, 64, core_num=1),
    lambda v: asc.jit(_axpy, auto_sync=v),
    lambda v: asc.jit(_axpy, multi_buffer=v),
    lambda v: asc.jit(_axpy, backend=v),
    lambda v: asc.jit(_axpy, **{str(v): 1}),
    lambda v: asc.autotune(_axpy, configs=v, key=["n"]),
    lambda v: asc.autotune(_axpy, configs=[asc.Config(core_num=1, tile=64)], key=v),
    lambda v: asc.Config(core_num=v, tile=64),
    lambda v: _axpy[v],
    lambda v: _axpy(v),
    lambda v: asc.GlobalTensor().set_global_buffer(v, 8),
    lambda v: asc.data_copy(v, v, 8),
    lambda v: asc.LocalTensor(asc.float32, asc.TPosition.VECIN, v, 8),
]
_VALUES = [None, 0, -1, 2 ** 70, math.nan, "bogus", [], [1, 2], {}, (1,), object(), np.ones(3), 1.5, True,
           [asc.Config(tile=0)], [object()]]


def test_random_misuse_of_the_public_functions_raises_only_our_errors(request):
    """Each call is wrong somewhere; what it raises must be an asc_trace error (or, where a name is used outside
    its API, the asc_trace error that says so), never a raw TypeError / AttributeError / KeyError."""
    rng = random.Random(2025)
    for _ in range(_sweep(request)):
        call, v = rng.choice(_API_CALLS), rng.choice(_VALUES)
        try:
            result = call(v)
            if callable(result) and not isinstance(result, asc.JitFunction):
                continue           # a launcher / a tuned callable: built lazily, launched elsewhere
        except AscTraceError:
            continue
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"raw {type(e).__name__} from {call.__code__.co_firstlineno} with {v!r}: {e}")


def _cli_argv(rng: random.Random, vadd: str) -> list[str]:
    pool = [["info"], ["info", "--json"], ["info", "--require", rng.choice(["sim", "npu", "gpu", ""])],
            ["cache", "list"], ["cache", "list", "--json"], ["cache", rng.choice(["frob", ""])],
            ["inspect", rng.choice([vadd, vadd + "x", "nofile.py::k", "::", vadd.split("::")[0] + "::nokernel"]),
             "--show", rng.choice(["traced", "bogus", "", ",", "source,traced"])]]
    argv = list(rng.choice(pool))
    if argv[0] == "inspect":
        extra = rng.choice([[], ["-c", rng.choice(["0", "-3", "x", "2", "99999999"])],
                            ["--args", rng.choice(["f32[64]", "q9[3]", "f32[]", "f32[2048]:bogus", "1e400", "(",
                                                   "f32[99999999999,99999]", "n=3", "=", "f16[64]"])],
                            ["-O", rng.choice(["auto_sync=False", "bogus=1", "multi_buffer", "=", "auto_sync="])],
                            ["--platform", rng.choice(["Ascend910B1", "nope"])],
                            ["--seed", rng.choice(["1", "x", "-5"])]])
        argv += extra
    return argv


def test_random_command_lines_are_an_exit_code_never_a_traceback(request, capsys, monkeypatch, tmp_path):
    from pathlib import Path
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(tmp_path / "cache"))
    vadd = str(Path(__file__).resolve().parents[1] / "examples" / "vadd.py") + "::vadd_kernel"
    rng = random.Random(7)
    for _ in range(_sweep(request) // 3):
        argv = _cli_argv(rng, vadd)
        try:
            code = cli_main(argv)
        except Exception as e:  # noqa: BLE001
            pytest.fail(f"asc-trace {' '.join(argv)}: raw {type(e).__name__}: {e}")
        _, err = capsys.readouterr()
        assert code in (0, 1, 2, 3, 4), argv
        assert "Traceback" not in err or "failed:" in err, (argv, err)    # only a user module's own traceback


def _corrupt(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(6)
    if choice == 0:
        return data[: rng.randrange(len(data) + 1)]                        # truncated
    if choice == 1:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 64)))
    if choice == 2:
        return json.dumps(rng.choice([[1, 2, 3], None, 42, "s", {"sha256": 5}, {"sha256": None},
                                      {"sha256": "0" * 64, "kernel": [1], "backend": {}}])).encode()
    if choice == 3:
        b = bytearray(data)
        if b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)               # one flipped bit
        return bytes(b)
    if choice == 4:
        return b""
    return data


def test_random_cache_corruption_is_rebuilt_never_trusted(request, capsys, monkeypatch, tmp_path):
    root = tmp_path / "cache"
    monkeypatch.setenv("ASC_TRACE_CACHE_DIR", str(root))
    c = cache_mod.CompileCache(root)
    rng = random.Random(11)
    for i in range(_sweep(request) // 3):
        key = cache_mod.cache_key({"fuzz": i})
        payload = f"artifact {i}".encode()

        def build(d, payload=payload):
            (d / "kernel.so").write_bytes(payload)
            return d / "kernel.so"
        c.get_or_build(key, "kernel.so", build, meta={"kernel": f"k{i}", "backend": "cpp"})
        d = c.entry(key)
        target = d / rng.choice(["meta.json", "kernel.so"])
        target.write_bytes(_corrupt(rng, target.read_bytes()))
        hit = c.lookup(key, "kernel.so")
        assert hit is None or hit.read_bytes() == payload                   # never a changed artifact
        path, _ = c.get_or_build(key, "kernel.so", build, meta={"kernel": f"k{i}", "backend": "cpp"})
        assert path.read_bytes() == payload
        if rng.random() < 0.5:
            (d / "meta.json").write_bytes(_corrupt(rng, (d / "meta.json").read_bytes()))
        assert cli_main(["cache", "list"]) == 0 and cli_main(["cache", "list", "--json"]) == 0
        capsys.readouterr()
