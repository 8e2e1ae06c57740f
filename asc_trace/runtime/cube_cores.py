"""Races between cube cores: the cores of a launch run independently (no flag orders one core after
another), so a GM element one core writes and another reads or writes is a race whatever the in-core
flags say. Checked row by row, exactly (a Fixpipe tile's rows are strided in C: two cores' tiles
side by side interleave without touching)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import RaceError


def check_across_cores(logs: list[tuple[int, list[tuple[tuple, Any]]]], names: dict[int, str]) -> None:
    """`logs`: (core, [((param, row starts, row length, element size, is_write), node), ...]) per core."""
    by_param: dict[int, list[tuple[np.ndarray, np.ndarray, int, bool, Any]]] = {}
    for core, log in logs:
        for (param, starts, length, _size, write), node in log:
            by_param.setdefault(param, []).append((starts, starts + length, core, write, node))
    for param, recs in sorted(by_param.items()):
        if not any(r[3] for r in recs) or len({r[2] for r in recs}) < 2:
            continue
        lo = np.concatenate([r[0] for r in recs])
        hi = np.concatenate([r[1] for r in recs])
        core = np.concatenate([np.full(len(r[0]), r[2]) for r in recs])
        write = np.concatenate([np.full(len(r[0]), r[3]) for r in recs])
        which = np.concatenate([np.full(len(r[0]), i) for i, r in enumerate(recs)])
        order = np.lexsort((~write, lo))
        lo, hi, core, write, which = lo[order], hi[order], core[order], write[order], which[order]
        # sweep: the interval reaching furthest so far, and the furthest one of another core than it
        best = (-1, -1, -1)          # (hi, core, index)
        second = (-1, -1, -1)
        for i in range(len(lo)):
            for other in (best, second):
                if other[0] > lo[i] and other[1] != core[i] and other[1] >= 0 and (write[i] or write[other[2]]):
                    j = other[2]
                    w, o = (i, j) if write[i] else (j, i)
                    raise RaceError(
                        f"cores {min(int(core[w]), int(core[o]))} and {max(int(core[w]), int(core[o]))} both touch "
                        f"GM argument '{names.get(param, param)}' "
                        f"elements [{int(max(lo[i], lo[j]))}, {int(min(hi[i], hi[j]))}), core {int(core[w])} writing "
                        "them: cores run independently, so no flag orders the two", node=recs[which[w]][4],
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
