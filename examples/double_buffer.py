"""Single vs double buffering of one streaming kernel, on the timing model.

Sigmoid over float32 data on every vector core, written the plain Ascend C way (TPipe / TQue,
copy_in / compute / copy_out per tile; the helpers of examples/cann_elementwise.py), with the number
of buffers per queue as a ConstExpr. With one buffer, a tile's copy-in waits until the previous
tile's compute has freed the input buffer, and its compute until the previous copy-out has freed the
output buffer: MTE2, V and MTE3 take turns. With two, the next tile's copy-in and the previous tile's
copy-out run while this tile computes.

When every core streams, each core's copies move at its share of the chip's GM rate (HBM-bound in
`profiles`: 48 x 1 Mi float32 in and out, a working set of 400 MB, twice the L2), so the copies, not
the vector unit, set the pace. Single
buffering adds the vector time of every tile to that pace; double buffering hides it. The model's
per-pipe figures show it (`main` prints both profiles), and `asc.autotune` picks two buffers.

Run: python examples/double_buffer.py
"""
from __future__ import annotations

import numpy as np

import asc_trace as asc
from cann_elementwise import copy_in, copy_out, sigmoid_compute

CORES = 48
TILE = 8192                      # float32 elements: 32 KB per copy, the best-practice size and more


@asc.jit
def sigmoid_buffered(x: asc.GlobalAddress, z: asc.GlobalAddress, per_core: int, tile: asc.ConstExpr[int],
                     buffers: asc.ConstExpr[int]):
    offset = asc.get_block_idx() * per_core
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + offset, per_core)
    zg.set_global_buffer(z + offset, per_core)
    pipe = asc.TPipe()
    qx, qz = asc.TQue(asc.TPosition.VECIN, buffers), asc.TQue(asc.TPosition.VECOUT, buffers)
    pipe.init_buffer(qx, buffers, tile * x.dtype.sizeof())
    pipe.init_buffer(qz, buffers, tile * x.dtype.sizeof())
    for i in range(per_core // tile):
        copy_in(qx, xg, i * tile, tile)
        sigmoid_compute(qx, qz, x.dtype, tile)
        copy_out(qz, zg, i * tile, tile)


def profiles(per_core: int = 1 << 20, cores: int = CORES) -> dict[int, asc.Profile]:
    """The modeled profile with 1 and 2 buffers per queue (timing only: np.empty data)."""
    x, z = np.empty(cores * per_core, np.float32), np.empty(cores * per_core, np.float32)
    return {b: asc.profile(sigmoid_buffered, x, z, per_core, TILE, b, core_num=cores, timing_only=True)
            for b in (1, 2)}


def autotuned(per_core: int = 1 << 18, cores: int = CORES) -> asc.Config:
    """The config `asc.autotune` picks between 1 and 2 buffers (it launches the pick: 100 MB moved)."""
    tuned = asc.autotune(sigmoid_buffered, key=["per_core"],
                         configs=[asc.Config(core_num=cores, tile=TILE, buffers=b) for b in (1, 2)])
    x = np.random.default_rng(0).standard_normal(cores * per_core).astype(np.float32)
    tuned(x, np.zeros_like(x), per_core)
    return tuned.best_config


def main() -> None:
    profs = profiles()
    for b, prof in profs.items():
        print(f"-- {b} buffer(s) per queue")
        print(prof.summary())
    one, two = profs[1], profs[2]
    print(f"double buffering: {one.time_us:.1f} us -> {two.time_us:.1f} us ({two.time_us / one.time_us - 1:+.1%}); "
          f"the blocks' difference {one.platform.cycles_to_us(one.core_cycles - two.core_cycles):.1f} us vs the V "
          f"pipe's busy time {one.platform.cycles_to_us(one.pipe_busy['V']):.1f} us")
    print("asc.autotune picks:", autotuned())


if __name__ == "__main__":
    main()
