"""Kernels that order their vector cores with asc.sync_all / asc.ib_set / asc.ib_wait (tests/test_block_sync.py),
and `suite()`: each call in each of its forms, for the header check and the registry's completeness test."""
from __future__ import annotations

import numpy as np

import asc_trace as asc

N = 64            # float32 elements per core
MAX_CORES = 16    # the UB workspace holds 8 int32 words per core


@asc.jit
def neighbour(x: asc.GlobalAddress, ws: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """z[c] = 2 x[c] + 2 x[c+1 mod cores]: each core publishes 2 x[c] in ws, then reads its neighbour's."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, wg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    wg.set_global_buffer(ws)
    zg.set_global_buffer(z + blk * n, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, n)
    asc.data_copy(a, xg, n)
    asc.muls(a, a, 2.0, n)
    asc.data_copy(wg[blk * n:], a, n)
    asc.sync_all()
    asc.data_copy(b, wg[((blk + 1) % nb) * n:], n)
    asc.add(b, b, a, n)
    asc.data_copy(zg, b, n)


@asc.jit
def neighbour_unsynced(x: asc.GlobalAddress, ws: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """`neighbour` without its barrier: a race across cores."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, wg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    wg.set_global_buffer(ws)
    zg.set_global_buffer(z + blk * n, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, n)
    asc.data_copy(a, xg, n)
    asc.muls(a, a, 2.0, n)
    asc.data_copy(wg[blk * n:], a, n)
    asc.data_copy(b, wg[((blk + 1) % nb) * n:], n)
    asc.add(b, b, a, n)
    asc.data_copy(zg, b, n)


@asc.jit
def two_stage_sum(x: asc.GlobalAddress, part: asc.GlobalAddress, sync_ws: asc.GlobalAddress, out: asc.GlobalAddress,
                  n: int, rounds: int, soft: asc.ConstExpr[bool]):
    """Each round: every core sums its n elements (scaled by the round) into part[core * 8], a barrier, then
    every core sums all the partial sums into out[core * 8] (8-float slots, as a copy moves 32 bytes)."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, pg, sg, og = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    pg.set_global_buffer(part)
    sg.set_global_buffer(sync_ws)
    og.set_global_buffer(out + blk * 8, 8)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    s = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 8)
    tmp = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, n)
    allp = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 12288, MAX_CORES * 8)
    tot = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 16384, 8)
    uws = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 20480, MAX_CORES * 8)
    for r in range(rounds):
        asc.data_copy(a, xg, n)
        asc.muls(a, a, r + 1.0, n)
        asc.duplicate(s, 0.0, 8)
        asc.reduce_sum(s, a, tmp, n)
        asc.data_copy(pg[blk * 8:], s, 8)
        if soft:
            asc.sync_all(sg, uws)
        else:
            asc.sync_all()
        asc.data_copy(allp, pg, nb * 8)
        asc.duplicate(tot, 0.0, 8)
        asc.reduce_sum(tot, allp, tmp, nb * 8)
        asc.data_copy(og, tot, 8)
        # the next round overwrites part: every core must have read it first
        if soft:
            asc.sync_all(sg, uws, 0)
        else:
            asc.sync_all()


@asc.jit
def ring_flags(x: asc.GlobalAddress, ws: asc.GlobalAddress, flags: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """`neighbour` ordered by flags: core c publishes, raises its own flag, and waits for core c+1's."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, wg, fg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    wg.set_global_buffer(ws)
    fg.set_global_buffer(flags)
    zg.set_global_buffer(z + blk * n, n)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, n)
    u = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 2048, 8)
    asc.data_copy(a, xg, n)
    asc.muls(a, a, 2.0, n)
    asc.data_copy(wg[blk * n:], a, n)
    asc.ib_set(fg, u, blk, 0)
    asc.ib_wait(fg, u, (blk + 1) % nb, 0)
    asc.data_copy(b, wg[((blk + 1) % nb) * n:], n)
    asc.add(b, b, a, n)
    asc.data_copy(zg, b, n)


@asc.jit
def prefix_chain(x: asc.GlobalAddress, flags: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """A pipeline across blocks: z[c] = z[c-1] + x[c] (z[0] = x[0]); core c waits for core c-1's flag, then
    passes its own on (event 1)."""
    blk = asc.get_block_idx()
    nb = asc.get_block_num()
    xg, fg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * n, n)
    fg.set_global_buffer(flags)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, n)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, n)
    u = asc.LocalTensor(asc.int32, asc.TPosition.VECCALC, 2048, 8)
    asc.data_copy(a, xg, n)

    def after_previous():
        asc.ib_wait(fg, u, blk - 1, 1)
        asc.data_copy(b, zg[(blk - 1) * n:], n)
        asc.add(a, a, b, n)
    asc.cond(blk > 0, after_previous, lambda: None)
    asc.data_copy(zg[blk * n:], a, n)
    asc.cond(blk < nb - 1, lambda: asc.ib_set(fg, u, blk, 1), lambda: None)


def suite() -> list:
    """Every form: the hardware and software barriers, ib_set and ib_wait."""
    cores = 4
    x = np.zeros(cores * N, np.float32)
    out = [asc.compile(neighbour, (x, np.zeros_like(x), np.zeros_like(x), N), core_num=cores)]
    for soft in (False, True):
        out.append(asc.compile(two_stage_sum, (x, np.zeros(cores * 8, np.float32), np.zeros(cores * 8, np.int32),
                                               np.zeros(cores * 8, np.float32), N, 2, soft), core_num=cores))
    out.append(asc.compile(ring_flags, (x, np.zeros_like(x), np.zeros(cores * 8, np.int32), np.zeros_like(x), N),
                           core_num=cores))
    return out
