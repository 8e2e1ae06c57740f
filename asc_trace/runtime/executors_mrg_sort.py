"""MrgSort and Sort (graph/ops/vec_mrg_sort.py) on sim and eager: a merge of sorted lists of 8-byte (score, index)
structures, largest score first, of equal scores the earlier list's first; Sort = Sort32, then (is_full_sort) every
structure stably sorted. The cases the documentation leaves open are refused, as for Sort32."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..errors import NotProvidedError
from ..graph.hb import Instr
from ..graph.node import Node, Pipe
from ..graph.ops import OpDef
from ..graph.ops.vec_mrg_sort import per_struct
from ..graph.ops.vec_sort import PER_REPEAT, STRUCT_BYTES
from .executor_base import binder, efn
from .executors_sort import _check_defined
from .machine import Machine

Step = Callable[[Machine], Instr | None]


def struct_keys(raw: np.ndarray, dt: Any) -> np.ndarray:
    """The float32 scores of the structures whose bytes are `raw` (..., n * 8): the score is in the low bytes."""
    lanes = raw.view(np.uint16 if dt.itemsize == 2 else np.uint32)
    words = lanes.reshape(*raw.shape[:-1], -1, STRUCT_BYTES // dt.itemsize)[..., 0]
    return words.view(dt.np).astype(np.float32)


def _check_merge(keys: list[np.ndarray], node: Node) -> None:
    """Refuse what the documentation does not define: NaN, +0 beside -0, and a list that is not sorted."""
    allk = np.concatenate(keys)
    if np.isnan(allk).any():
        raise NotProvidedError("asc.mrg_sort got a NaN score: where MrgSort places NaN is not documented", node=node,
                               hint="replace NaN scores (e.g. with asc.select against a compare) before sorting")
    zero = allk == 0
    if (zero & np.signbit(allk)).any() and (zero & ~np.signbit(allk)).any():
        raise NotProvidedError("asc.mrg_sort got +0 and -0 scores in one merge: whether MrgSort ties them is not "
                               "documented", node=node,
                               hint="add +0.0 to the scores first (asc.adds) to make every zero +0")
    for k, key in enumerate(keys):
        if (np.diff(key) > 0).any():
            raise NotProvidedError(f"asc.mrg_sort's list {k + 1} is not sorted largest score first: MrgSort merges "
                                   "sorted lists, and what it does with others is not documented", node=node,
                                   hint="sort each list first (asc.sort32 sorts groups of 32; asc.mrg_sort merges "
                                        "them)")


def merge_lists(lists: list[np.ndarray], keys: list[np.ndarray], exhausted: bool) -> np.ndarray:
    """The merge of sorted lists of structures (rows of 8 bytes): largest key first, of equal keys the earlier
    list's (a stable sort of the lists in order); with `exhausted` it stops after the structure that empties a list."""
    allk = np.concatenate(keys)
    order = np.argsort(-allk, kind="stable")
    merged = np.concatenate(lists)[order]
    if not exhausted:
        return merged
    owner = np.concatenate([np.full(len(k), i) for i, k in enumerate(keys)])[order]
    used = np.zeros(len(lists), dtype=np.int64)
    for pos, i in enumerate(owner):
        used[i] += 1
        if used[i] == len(keys[i]):
            return merged[:pos + 1]
    return merged


@binder("vec_mrg_sort")
def _bind_mrg_sort(node: Node, op: OpDef) -> Step:
    d, *srcs = node.args
    dt = d.dtype
    lengths = node.attr("lengths")[:len(srcs)]
    repeat, exhausted = node.attr("repeat"), node.attr("exhausted")
    total = sum(lengths)
    per = per_struct(dt)
    fd, fs = efn(d.offset), [efn(s.offset) for s in srcs]

    def run(m: Machine) -> Instr | None:
        env = m.env
        views, ub, addrs = [], [], []
        for k, (s, f, n) in enumerate(zip(srcs, fs, lengths)):
            span = (repeat - 1) * total + n
            a, v = m.ub_access(s, f(env), span * per, node, f"list {k + 1} (src{k + 1})")
            views.append(v)
            addrs.append(a)
            ub.append((a, span * STRUCT_BYTES, False))
        if repeat > 1 and any(a != addrs[0] + k * lengths[0] * STRUCT_BYTES for k, a in enumerate(addrs)):
            raise NotProvidedError(f"asc.mrg_sort with repeat_time {repeat} needs its four lists back to back (list "
                                   f"k at list 1 + k x {lengths[0]} structures); they start at UB bytes {addrs}: "
                                   "where the instruction reads the next repeat's lists then is not documented",
                                   node=node, hint="slice the lists from one tensor (src[k * length * "
                                                   f"{per}:]), or merge one repeat per call")
        ad, vd = m.ub_access(d, fd(env), repeat * total * per, node, "dst")
        ub.append((ad, repeat * total * STRUCT_BYTES, True))

        def apply() -> None:
            cores = vd.shape[0]
            raws = [np.ascontiguousarray(v).view(np.uint8).reshape(cores, -1, STRUCT_BYTES) for v in views]
            out = vd.view(np.uint8).reshape(cores, -1, STRUCT_BYTES)
            results = []
            for c in range(cores):
                for r in range(repeat):
                    lists = [raw[c, r * total:r * total + n] for raw, n in zip(raws, lengths)]
                    keys = [struct_keys(li.reshape(-1), dt) for li in lists]
                    _check_merge(keys, node)
                    results.append((c, r, merge_lists(lists, keys, exhausted)))
            for c, r, res in results:        # every list read before dst is written (they may overlap)
                out[c, r * total:r * total + len(res)] = res
        # an empty list touches no byte (the race checker would otherwise see a zero-length access)
        return Instr(node, Pipe.V, "op", apply=apply, work=repeat * total * per, ub=tuple(u for u in ub if u[1]))
    return run


@binder("vec_sort")
def _bind_sort(node: Node, op: OpDef) -> Step:
    """Sort: Sort32 of each repeat, then (is_full_sort) every structure sorted stably, tmp receiving a copy (the
    A2 steps: Sort32, then DoFullSort's rounds of four-list merges through tmp)."""
    d, concat, index, tmp, repeat_e = node.args
    full = node.attr("full")
    dt = d.dtype
    fd, fc, fi, ft, fr = efn(d.offset), efn(concat.offset), efn(index.offset), efn(tmp.offset), efn(repeat_e)

    def run(m: Machine) -> Instr | None:
        env = m.env
        repeat = m.count(fr(env), node)
        if repeat == 0:
            return None
        n = repeat * PER_REPEAT
        nd = n * STRUCT_BYTES // dt.itemsize
        a0, v0 = m.ub_access(concat, fc(env), n, node, "concat (the scores)")
        a1, v1 = m.ub_access(index, fi(env), n, node, "index")
        ad, _vd = m.ub_access(d, fd(env), nd, node, "dst")
        ub = [(a0, n * dt.itemsize, False), (a1, n * 4, False), (ad, n * STRUCT_BYTES, True)]
        at = 0
        if full:
            at, _vt = m.ub_access(tmp, ft(env), nd, node, "tmp")
            ub.append((at, n * STRUCT_BYTES, True))

        def apply() -> None:
            cores = v0.shape[0]
            scores = v0.reshape(cores, repeat, PER_REPEAT).astype(np.float32)
            _check_defined(scores, node)
            if full:
                _check_defined(scores.reshape(cores, 1, n), node)     # the merges see every score at once
            order = np.argsort(-scores, axis=-1, kind="stable")
            bits = v0.view(np.uint16 if dt.itemsize == 2 else np.uint32).reshape(cores, repeat, PER_REPEAT)
            idx = v1.reshape(cores, repeat, PER_REPEAT)
            raw = m.ub[:, ad:ad + n * STRUCT_BYTES]
            words = raw.view(np.uint32).reshape(cores, repeat, PER_REPEAT, 2)
            words[..., 1] = np.take_along_axis(idx, order, axis=-1)
            if dt.itemsize == 4:
                words[..., 0] = np.take_along_axis(bits, order, axis=-1)
            else:            # the half score in the low 2 bytes; the 2 reserved bytes are left as they were
                raw.view(np.uint16).reshape(cores, repeat, PER_REPEAT, 4)[..., 0] = \
                    np.take_along_axis(bits, order, axis=-1)
            if not full:
                return
            structs = raw.reshape(cores, n, STRUCT_BYTES)
            keys = struct_keys(raw, dt)
            perm = np.argsort(-keys, axis=-1, kind="stable")     # the merges keep equal scores in order
            structs[...] = np.take_along_axis(structs, perm[..., None], axis=1)
            m.ub[:, at:at + n * STRUCT_BYTES] = raw
        return Instr(node, Pipe.V, "op", apply=apply, work=n, ub=tuple(ub))
    return run
