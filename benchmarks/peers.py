"""asc_trace's simulator against its peers' CPU interpreters, side by side in one run (issue 26).

The same kernels, 8 cores (programs) x N float32 per core, N = 2,048 and 65,536:

- vadd: the seed's manual vadd (events) and the flag-free vadd (auto_sync) on `sim`, race checker on;
  JAX Pallas `interpret=True` under jax.jit, Triton with TRITON_INTERPRET=1 (both a block per program);
  NumPy's `x + y`;
- softmax over rows of 2,048 columns (N / 2,048 rows per core): examples/softmax_rows.py on `sim`;
  the peers' row softmax (max, exp, sum, divide per block of rows); NumPy's.

Each figure is the median of three rounds, each round the best of several calls of a warm launch
(compiled, arguments of a launch key already checked); rounds interleave all contenders so that the
machine's load falls on all of them. The load is printed before and after. The peers run in their own
virtualenvs, made here on the first run (.venv-peers-jax, .venv-peers-triton, from the package index);
a peer that cannot be installed or run is reported as such, never estimated.

Goals (issue 26): a warm launch <= 0.5x Pallas at both sizes; 8 x 65,536 <= 4x NumPy; an empty 8-core
launch <= 20 us. The first launch of a launch key (race check, then the run it records) is shown too.
Run: python benchmarks/peers.py [--rounds 3] [--peers jax,triton]   (`make bench` runs it)
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from statistics import median
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples"))

import asc_trace as asc  # noqa: E402
from softmax_rows import TILE, reference as softmax_reference, softmax_rows  # noqa: E402
from vadd import vadd_kernel  # noqa: E402
from vadd_noflags import vadd_noflags  # noqa: E402

CORES = 8
SIZES = (2048, 65536)
COLS = 2048                       # softmax row length (TILE-sized tiles)
TORCH = "torch==2.13.0"           # the CPU build the Makefile installs (TORCH_VERSION)
PEERS = {"jax": ["jax", "numpy"], "triton": ["triton", "numpy", TORCH]}


def measure(fn: Callable[[], object], budget: float = 0.02, repeat: int = 5) -> float:
    """Seconds per call: the best of `repeat` batches, each about `budget` seconds long."""
    fn()
    t0 = time.perf_counter()
    fn()
    once = max(time.perf_counter() - t0, 1e-7)
    number = int(min(500, max(1, budget / once)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


# -- the peers, each in its own virtualenv ---------------------------------------------------------------

PEER_CODE = r'''
import json, os, sys, time
cfg = json.loads(sys.argv[1])
peer = cfg["peer"]
if peer == "triton":
    os.environ["TRITON_INTERPRET"] = "1"
import numpy as np

def measure(fn, budget=0.02, repeat=5):
    fn()
    t0 = time.perf_counter(); fn(); once = max(time.perf_counter() - t0, 1e-7)
    number = int(min(500, max(1, budget / once)))
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best

def softmax_ref(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)

out = {}
cores, cols = cfg["cores"], cfg["cols"]
if peer == "jax":
    import jax, jax.numpy as jnp
    from jax.experimental import pallas as pl
    out["version"] = "jax " + jax.__version__

    def vadd_kernel(x_ref, y_ref, o_ref):
        o_ref[...] = x_ref[...] + y_ref[...]

    def softmax_kernel(x_ref, o_ref):
        v = x_ref[...]
        e = jnp.exp(v - jnp.max(v, axis=1, keepdims=True))
        o_ref[...] = e / jnp.sum(e, axis=1, keepdims=True)

    for per_core in cfg["sizes"]:
        n = cores * per_core
        rng = np.random.default_rng(0)
        xn, yn = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        spec = pl.BlockSpec((per_core,), lambda i: (i,))
        f = jax.jit(lambda x, y: pl.pallas_call(vadd_kernel, out_shape=jax.ShapeDtypeStruct((n,), jnp.float32),
                                                grid=(cores,), in_specs=[spec, spec], out_specs=spec,
                                                interpret=True)(x, y))
        x, y = jnp.asarray(xn), jnp.asarray(yn)
        assert np.array_equal(np.asarray(f(x, y)), xn + yn)
        out[f"vadd/{per_core}"] = measure(lambda: f(x, y).block_until_ready())
        rows = per_core // cols
        xs = rng.standard_normal((cores * rows, cols)).astype(np.float32)
        rspec = pl.BlockSpec((rows, cols), lambda i: (i, 0))
        g = jax.jit(lambda x: pl.pallas_call(softmax_kernel, out_shape=jax.ShapeDtypeStruct(xs.shape, jnp.float32),
                                             grid=(cores,), in_specs=[rspec], out_specs=rspec, interpret=True)(x))
        xj = jnp.asarray(xs)
        assert np.allclose(np.asarray(g(xj)), softmax_ref(xs), rtol=1e-5, atol=1e-6)
        out[f"softmax/{per_core}"] = measure(lambda: g(xj).block_until_ready())
else:
    import torch, triton, triton.language as tl
    out["version"] = "triton " + triton.__version__

    @triton.jit
    def vadd_kernel(x_ptr, y_ptr, z_ptr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(z_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))

    @triton.jit
    def softmax_kernel(x_ptr, z_ptr, ROWS: tl.constexpr, COLS: tl.constexpr):
        for r in range(ROWS):
            offs = (tl.program_id(0) * ROWS + r) * COLS + tl.arange(0, COLS)
            v = tl.load(x_ptr + offs)
            e = tl.exp(v - tl.max(v, axis=0))
            tl.store(z_ptr + offs, e / tl.sum(e, axis=0))

    for per_core in cfg["sizes"]:
        n = cores * per_core
        rng = np.random.default_rng(0)
        xn, yn = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
        x, y, z = torch.from_numpy(xn), torch.from_numpy(yn), torch.zeros(n)
        vadd_kernel[(cores,)](x, y, z, BLOCK=per_core)
        assert np.array_equal(z.numpy(), xn + yn)
        out[f"vadd/{per_core}"] = measure(lambda: vadd_kernel[(cores,)](x, y, z, BLOCK=per_core), repeat=3)
        rows = per_core // cols
        xs = rng.standard_normal((cores * rows, cols)).astype(np.float32)
        xt, zt = torch.from_numpy(xs), torch.zeros(xs.shape)
        softmax_kernel[(cores,)](xt, zt, ROWS=rows, COLS=cols)
        assert np.allclose(zt.numpy(), softmax_ref(xs), rtol=1e-5, atol=1e-6)
        out[f"softmax/{per_core}"] = measure(lambda: softmax_kernel[(cores,)](xt, zt, ROWS=rows, COLS=cols),
                                             repeat=3)
print(json.dumps(out))
'''


def peer_python(name: str) -> tuple[Path | None, str]:
    """The peer's virtualenv interpreter, made on the first run; (None, why) when it cannot be made."""
    venv = ROOT / f".venv-peers-{name}"
    py = venv / "bin" / "python"
    if py.exists():
        return py, ""
    print(f"making {venv.name} ({', '.join(PEERS[name])}) ...", flush=True)
    base = getattr(sys, "_base_executable", sys.executable)
    steps = [[base, "-m", "venv", str(venv)], [str(py), "-m", "pip", "install", "-q", *PEERS[name]]]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            lines = [ln for ln in (r.stderr or r.stdout).splitlines() if ln.strip() and "is ignored" not in ln]
            return None, f"could not be installed ({' '.join(cmd[2:5])}): {lines[-1] if lines else r.returncode}"
    return py, ""


def run_peer(name: str, py: Path) -> tuple[dict | None, str]:
    cfg = json.dumps({"peer": name, "cores": CORES, "cols": COLS, "sizes": list(SIZES)})
    r = subprocess.run([str(py), "-c", PEER_CODE, cfg], capture_output=True, text=True)
    if r.returncode != 0:
        tail = [ln for ln in r.stderr.splitlines() if ln.strip()]
        return None, f"failed: {tail[-1] if tail else r.returncode}"
    return json.loads(r.stdout.strip().splitlines()[-1]), ""


# -- asc_trace and NumPy ---------------------------------------------------------------------------------

def _vadd_args(per_core: int) -> tuple:
    rng = np.random.default_rng(0)
    n = CORES * per_core
    return rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32), np.zeros(n, np.float32)


def ours() -> dict[str, float]:
    out: dict[str, float] = {}
    seed = asc.jit(vadd_kernel, backend="sim")
    flagfree = asc.jit(vadd_noflags, backend="sim")
    softmax = asc.jit(softmax_rows, backend="sim")
    for per_core in SIZES:
        x, y, z = _vadd_args(per_core)
        seed[CORES](x, y, z, per_core)
        assert np.array_equal(z, x + y)
        out[f"seed/{per_core}"] = measure(lambda: seed[CORES](x, y, z, per_core))
        tile = min(per_core, 4096)
        flagfree[CORES](x, y, z, per_core, tile)
        assert np.array_equal(z, x + y)
        out[f"flagfree/{per_core}"] = measure(lambda: flagfree[CORES](x, y, z, per_core, tile))
        out[f"numpy-vadd/{per_core}"] = measure(lambda: x + y)
        rows = per_core // COLS
        xs = np.random.default_rng(1).standard_normal((CORES * rows, COLS)).astype(np.float32)
        zs = np.zeros_like(xs)
        softmax[CORES](xs, zs, rows, COLS // TILE)
        assert np.allclose(zs, softmax_reference(xs), rtol=1e-5, atol=1e-6)
        out[f"softmax/{per_core}"] = measure(lambda: softmax[CORES](xs, zs, rows, COLS // TILE), budget=0.05,
                                             repeat=3)
        out[f"numpy-softmax/{per_core}"] = measure(lambda: softmax_reference(xs))
        out[f"first/{per_core}"] = first_launch(per_core)
    out["empty"] = empty_launch()
    return out


def first_launch(per_core: int) -> float:
    """A launch key's first launch of the seed vadd: its race check and the run it records."""
    from asc_trace.runtime import get_runtime
    k = asc.jit(vadd_kernel, backend="sim")
    x, y, z = _vadd_args(per_core)
    k[CORES](x, y, z, per_core)
    art = k.compiled(k._bind((x, y, z, per_core), {}, None).signature).artifact(get_runtime("sim"))

    def first() -> None:
        art.checked.clear()
        art.replays.clear()
        k[CORES](x, y, z, per_core)
    return measure(first, budget=0.01, repeat=3)


def empty_launch() -> float:
    @asc.jit(backend="sim")
    def empty(x: asc.GlobalAddress):
        pass

    x = np.zeros(8, np.float32)
    return measure(lambda: empty[CORES](x))


def breakdown(per_core: int = SIZES[0]) -> None:
    """Where a warm launch of the seed vadd goes, each step timed alone (perf_counter, best of several)."""
    from asc_trace.fingerprint import launch_fingerprint
    from asc_trace.runtime import get_runtime
    from asc_trace.runtime.base import LaunchJob
    from asc_trace.runtime.gm_sharing import refuse_shared_writes
    from asc_trace.runtime.sim import launch_key
    k = asc.jit(vadd_kernel, backend="sim")
    args = _vadd_args(per_core) + (per_core,)
    k[CORES](*args)
    bound = k._bind(args, {}, None)
    ck = k.compiled(bound.signature)
    art = ck.artifact(get_runtime("sim"))
    job = LaunchJob(ck.name, k.fn, ck.graph, bound, CORES, None, None, ck.options)
    key, _ = launch_key(job)
    replay = art.replays[key]
    steps = [("the whole warm launch", lambda: k[CORES](*args)),
             ("binding the arguments (ArgBinder)", lambda: k._bind(args, {}, None)),
             ("fingerprint check", lambda: launch_fingerprint(k.fn)),
             ("compile-cache lookup (with the fingerprint)", lambda: k.compiled(bound.signature)),
             ("shared-memory check", lambda: refuse_shared_writes(ck.graph, bound, None)),
             ("launch key", lambda: launch_key(job)),
             ("the replayed run (NumPy calls)", lambda: replay.run(bound.arrays))]
    print(f"\nwarm launch of the seed vadd, {CORES} x {per_core:,} float32, step by step:")
    for what, fn in steps:
        print(f"  {what:45s} {measure(fn) * 1e6:8.1f} us")


# -- the report ------------------------------------------------------------------------------------------

def _us(t: float | None) -> str:
    if t is None:
        return "n/a"
    return f"{t * 1e6:,.0f} us" if t < 1e-2 else f"{t * 1e3:,.1f} ms"


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} CPUs)"


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--breakdown", action="store_true", help="only time the steps of a warm launch")
    ap.add_argument("--peers", default=",".join(PEERS),
                    help="the peers to run, comma-separated (default: %(default)s); the others are not installed")
    opts = ap.parse_args()
    if opts.breakdown:
        print(f"before: {_load()}")
        breakdown()
        print(f"after: {_load()}")
        return
    print(f"before: {_load()}")
    pythons, notes = {}, {}
    for name in [p for p in opts.peers.split(",") if p]:
        if name not in PEERS:
            ap.error(f"unknown peer {name!r} (peers: {', '.join(PEERS)})")
        py, why = peer_python(name)
        if py is None:
            notes[name] = why
        else:
            pythons[name] = py
    rounds: list[dict[str, float]] = []
    versions: dict[str, str] = {}
    for r in range(opts.rounds):
        res = {f"asc/{k}": v for k, v in ours().items()}
        for name, py in pythons.items():
            got, why = run_peer(name, py)
            if got is None:
                notes[name] = why
                continue
            versions[name] = got.pop("version")
            res.update({f"{name}/{k}": v for k, v in got.items()})
        rounds.append(res)
        print(f"round {r + 1} done: {_load()}", flush=True)
    cell = {k: median(rd[k] for rd in rounds if k in rd) for k in set().union(*rounds)}
    empty = cell["asc/empty"]

    print(f"\n{CORES} cores x N float32 per core; median of {opts.rounds} rounds, each the best of several warm "
          f"launches; numpy {np.__version__}, {', '.join(versions.values()) or 'no peer ran'}")
    for name, why in notes.items():
        print(f"  {name}: {why}")
    head = "| kernel | N per core | asc_trace sim | Pallas interpret=True (jit) | Triton TRITON_INTERPRET=1 | NumPy |"
    print("\n" + head + "\n|---|---|---|---|---|---|")
    for kernel, ours_key, peer_key, np_key in (("seed vadd", "seed", "vadd", "numpy-vadd"),
                                               ("flag-free vadd", "flagfree", "vadd", "numpy-vadd"),
                                               ("softmax over rows", "softmax", "softmax", "numpy-softmax")):
        for n in SIZES:
            print(f"| {kernel} | {n:,} | {_us(cell.get(f'asc/{ours_key}/{n}'))} | "
                  f"{_us(cell.get(f'jax/{peer_key}/{n}'))} | {_us(cell.get(f'triton/{peer_key}/{n}'))} | "
                  f"{_us(cell.get(f'asc/{np_key}/{n}'))} |")
    print("\ngoals (issue 26):")
    for n in SIZES:
        ours_t, pallas = cell[f"asc/seed/{n}"], cell.get(f"jax/vadd/{n}")
        flag = cell[f"asc/flagfree/{n}"]
        if pallas is None:
            print(f"  8 x {n:,}: warm launch vs Pallas: not measured (Pallas did not run)")
        else:
            print(f"  8 x {n:,}: warm launch = {ours_t / pallas:.2f}x Pallas (flag-free {flag / pallas:.2f}x; goal <= 0.5x: "
                  f"{_verdict(max(ours_t, flag) <= 0.5 * pallas)})")
        soft, soft_pallas = cell[f"asc/softmax/{n}"], cell.get(f"jax/softmax/{n}")
        if soft_pallas is not None:
            print(f"  8 x {n:,}: softmax over rows = {soft / soft_pallas:.2f}x Pallas (goal <= 0.5x: "
                  f"{_verdict(soft <= 0.5 * soft_pallas)}), {soft / cell[f'asc/numpy-softmax/{n}']:.1f}x NumPy's")
    big = cell[f"asc/seed/{SIZES[-1]}"] / cell[f"asc/numpy-vadd/{SIZES[-1]}"]
    big_ff = cell[f"asc/flagfree/{SIZES[-1]}"] / cell[f"asc/numpy-vadd/{SIZES[-1]}"]
    print(f"  8 x {SIZES[-1]:,}: {big:.1f}x NumPy (flag-free {big_ff:.1f}x; goal <= 4x: {_verdict(max(big, big_ff) <= 4)})")
    print(f"  empty 8-core launch: {empty * 1e6:.1f} us (goal <= 20 us: {_verdict(empty <= 20e-6)})")
    for n in SIZES:
        print(f"  first launch of a launch key (race check + recorded run), seed vadd 8 x {n:,}: "
              f"{_us(cell[f'asc/first/{n}'])} (then {_us(cell[f'asc/seed/{n}'])} warm)")
    print(f"after: {_load()}")


if __name__ == "__main__":
    main()
