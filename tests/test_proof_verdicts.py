"""The proof's remembered verdicts (graph/sync_proof.py `prove`): the same kernel compiled twice is proved
once; a changed kernel is proved again; the key holds everything the verdict depends on, so a remembered
verdict is never handed to a graph it was not computed for (an edited schedule, other GM sharing)."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph import sync_proof
from asc_trace.jit_function import CompiledKernel, JitFunction
from asc_trace.runtime.args import bind_args


@asc.jit
def ping_pong_scale(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tile: asc.ConstExpr[int]):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 2 * tile)
    for i in range(n):
        b = (i % 2) * tile
        asc.data_copy(t[b:], xg[i * tile:], tile)
        asc.muls(t[b:], t[b:], 2.0, tile)
        asc.data_copy(zg[i * tile:], t[b:], tile)


X = np.arange(4 * 64, dtype=np.float32)


def fresh(args: tuple) -> CompiledKernel:
    """A compile that bypasses every compile cache (a new JitFunction): only the verdicts are shared."""
    jf = JitFunction(ping_pong_scale.fn)
    ck = CompiledKernel(jf, bind_args(jf.name, jf.specs, args, {}, None).signature)
    ck.source
    return ck


@pytest.fixture
def proofs(monkeypatch):
    """The number of proofs actually run."""
    sync_proof.clear_verdicts()
    runs = []
    real = sync_proof.Prover.run

    def counting(self, cache=None):
        runs.append(self.g)
        return real(self, cache)
    monkeypatch.setattr(sync_proof.Prover, "run", counting)
    yield runs
    sync_proof.clear_verdicts()


def test_same_kernel_twice_is_proved_once(proofs):
    a = fresh((X, np.zeros_like(X), 4, 64))
    first = len(proofs)
    assert first >= 1
    b = fresh((X, np.zeros_like(X), 4, 64))
    assert len(proofs) == first             # every prove of the second compile was remembered
    assert a.source == b.source


def test_changed_kernel_is_proved_again(proofs):
    fresh((X, np.zeros_like(X), 4, 64))
    first = len(proofs)
    fresh((X, np.zeros_like(X), 4, 32))     # another tile: other addresses, another graph
    assert len(proofs) > first


def test_clear_verdicts_proves_again(proofs):
    fresh((X, np.zeros_like(X), 4, 64))
    first = len(proofs)
    sync_proof.clear_verdicts()
    fresh((X, np.zeros_like(X), 4, 64))
    assert len(proofs) == 2 * first


def test_a_schedule_with_a_wait_removed_is_not_handed_the_proved_verdict(proofs):
    g = fresh((X, np.zeros_like(X), 4, 64)).graph
    assert sync_proof.prove(g) == []
    for nid in [n.id for n in g if n.op == "wait_flag"]:
        h = g.copy()
        h.set_order([m for m in g.order if m != nid])
        assert sync_proof.prove(h), f"removing wait %{nid} must be caught"


def test_gm_sharing_is_part_of_the_key(proofs):
    g = fresh((X, np.zeros_like(X), 4, 64)).graph
    assert sync_proof.prove(g) == []
    # the same nodes, but z is x shifted by one tile at this launch: copy-out of tile i writes what the
    # copy-in of tile i + 1 reads, which the unshared schedule does not order
    params = list(g.signature.params)
    params[1] = dataclasses.replace(params[1], alias=(0, 64 * 4))
    shared = g.copy()
    shared.signature = dataclasses.replace(g.signature, params=tuple(params))
    assert sync_proof.verdict_key(shared) != sync_proof.verdict_key(g)
    assert any(v.kind == "order" for v in sync_proof.prove(shared))


def test_verdicts_are_bounded(proofs):
    g = fresh((X, np.zeros_like(X), 4, 64)).graph
    for k in range(sync_proof.MAX_VERDICTS + 10):
        h = g.copy()
        h.name = f"copy{k}"
        h.signature = dataclasses.replace(g.signature, params=g.signature.params + (
            dataclasses.replace(g.signature.params[-1], index=len(g.signature.params), name=f"pad{k}"),))
        sync_proof.prove(h)
    assert len(sync_proof._verdicts) == sync_proof.MAX_VERDICTS


def test_program_order_is_part_of_the_key(proofs):
    """The same nodes in another order: a wait moved after the instruction it guards."""
    g = fresh((X, np.zeros_like(X), 4, 64)).graph
    assert sync_proof.prove(g) == []
    moved = 0
    for k, nid in enumerate(g.order[:-1]):
        nxt = g.node(g.order[k + 1])
        if g.node(nid).op == "wait_flag" and nxt.pipe is not None and "flag" not in nxt.op \
                and nxt.regions == g.node(nid).regions:
            h = g.copy()
            order = list(g.order)
            order[k], order[k + 1] = order[k + 1], order[k]
            h.set_order(order)
            assert sync_proof.prove(h), f"wait %{nid} after %{nxt.id} must be caught"
            moved += 1
    assert moved
