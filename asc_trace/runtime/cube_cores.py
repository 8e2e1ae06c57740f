"""Races between cube cores: the cores of a launch run independently (no flag orders one core after
another), so a GM element one core writes and another reads or writes is a race whatever the in-core
flags say. Checked row by row, exactly (a Fixpipe tile's rows are strided in C: two cores' tiles
side by side interleave without touching).

One exception: two cores writing the *same bytes* to the same elements (pyasc's MIX Matmul kernels
whose clients n..2n-1 recompute blocks 0..n-1, `block_idx % n`). The memory ends up with those bytes
whichever write lands last, so the kernel is correct on the NPU; it is an AscTraceWarning (once per
kernel), not a RaceError. Equal in this run only: a read of such bytes by another core, or a write of
different bytes, is still a RaceError."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ..errors import AscTraceWarning, RaceError


class BytesUnknown(RaceError):
    """Two cores write the same elements in a check run without data (eager's and cpp's hazard check): whether
    the bytes are equal needs the data (runtime/cube_eager.py runs the check again with it)."""


def keep_written_bytes(apply: Callable[[], Any], arr: np.ndarray, gm: tuple) -> tuple[Callable[[], Any], tuple]:
    """`apply` wrapped to keep the bytes the write leaves in its GM rows, and `gm` with a 6th entry: a
    list that holds them, one row of bytes per row, once the write is applied."""
    param, starts, length, size, _write = gm[:5]
    kept: list[np.ndarray] = []
    flat = arr.reshape(-1).view(np.uint8)
    idx = (np.asarray(starts, dtype=np.int64)[:, None] * size + np.arange(length * size, dtype=np.int64)[None, :])

    def run() -> Any:
        r = apply()
        kept.append(flat[idx])          # fancy indexing: a copy, as written now
        return r
    return run, (param, starts, length, size, True, kept)


def _row_bytes(rec: tuple, row: int) -> np.ndarray | None:
    kept = rec[5]
    return kept[0][row] if kept else None


def _same_bytes(a: tuple, ra: int, b: tuple, rb: int, lo: int, hi: int) -> bool:
    """Whether two writes (record, row) left equal bytes in elements [lo, hi) (unknown: False)."""
    xa, xb = _row_bytes(a, ra), _row_bytes(b, rb)
    if xa is None or xb is None:
        return False
    size = a[6]
    sa, sb = int(a[0][ra]), int(b[0][rb])
    return bool(np.array_equal(xa[(lo - sa) * size:(hi - sa) * size], xb[(lo - sb) * size:(hi - sb) * size]))


def check_across_cores(logs: list[tuple[int, list[tuple[tuple, Any]]]], names: dict[int, str]) -> None:
    """`logs`: (core, [((param, row starts, row length, element size, is_write[, kept bytes]), node), ...])
    per core."""
    by_param: dict[int, list[tuple]] = {}
    warned = False                  # one warning per launch checked (a launch key is checked once)
    for core, log in logs:
        for gm, node in log:
            param, starts, length, size, write = gm[:5]
            kept = gm[5] if len(gm) > 5 else []
            by_param.setdefault(param, []).append((starts, starts + length, core, write, node, kept, size))
    for param, recs in sorted(by_param.items()):
        if not any(r[3] for r in recs) or len({r[2] for r in recs}) < 2:
            continue
        lo = np.concatenate([r[0] for r in recs])
        hi = np.concatenate([r[1] for r in recs])
        core = np.concatenate([np.full(len(r[0]), r[2]) for r in recs])
        write = np.concatenate([np.full(len(r[0]), r[3]) for r in recs])
        which = np.concatenate([np.full(len(r[0]), i) for i, r in enumerate(recs)])
        row = np.concatenate([np.arange(len(r[0])) for r in recs])
        order = np.lexsort((~write, lo))
        lo, hi, core, write, which, row = lo[order], hi[order], core[order], write[order], which[order], row[order]
        # sweep: the interval reaching furthest so far, and the furthest one of another core than it
        best = (-1, -1, -1)          # (hi, core, index)
        second = (-1, -1, -1)
        for i in range(len(lo)):
            for other in (best, second):
                if other[0] > lo[i] and other[1] != core[i] and other[1] >= 0 and (write[i] or write[other[2]]):
                    j = other[2]
                    w, o = (i, j) if write[i] else (j, i)
                    e0, e1 = int(max(lo[i], lo[j])), int(min(hi[i], hi[j]))
                    name = names.get(param, param)
                    if write[i] and write[j] and _same_bytes(recs[which[i]], int(row[i]), recs[which[j]], int(row[j]),
                                                             e0, e1):
                        if not warned:
                            warned = True
                            _warn_equal_writes(recs[which[w]][4] if core[w] > core[o] else recs[which[o]][4],
                                               int(min(core[i], core[j])), int(max(core[i], core[j])), name,
                                               e0, e1)
                        continue
                    unknown = write[i] and write[j] and not (recs[which[i]][5] and recs[which[j]][5])
                    raise (BytesUnknown if unknown else RaceError)(
                        f"cores {min(int(core[w]), int(core[o]))} and {max(int(core[w]), int(core[o]))} both touch "
                        f"GM argument '{name}' elements [{e0}, {e1}), core {int(core[w])} writing "
                        "them: cores run independently, so no flag orders the two"
                        + (" (and the two writes leave different bytes)" if write[i] and write[j] and not unknown
                           else ""),
                        node=recs[which[w]][4],
                        related=[(f"core {int(core[o])}'s access", recs[which[o]][4].loc)],
                        hint="give each core its own part of the output (check the tile offsets computed from "
                             "get_block_idx())")
            cand = (int(hi[i]), int(core[i]), i)
            if cand[0] > best[0]:
                if cand[1] != best[1]:
                    second = best
                best = cand
            elif cand[1] != best[1] and cand[0] > second[0]:
                second = cand


def _warn_equal_writes(node: Any, c0: int, c1: int, name: str, e0: int, e1: int) -> None:
    """The AscTraceWarning at the second core's write."""
    warnings.warn_explicit(AscTraceWarning(
        f"cores {c0} and {c1} both write elements [{e0}, {e1}) of GM argument '{name}' with nothing ordering the "
        "two writes; they wrote identical bytes in this run, so the result does not depend on which lands last "
        "(order-independent only because the bytes are equal: different data that makes them differ is a race)"),
        AscTraceWarning, node.loc.file, node.loc.line)
