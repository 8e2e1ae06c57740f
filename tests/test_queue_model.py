"""The one TQue model (graph/queue_model.py): how alloc_tensor / enque / deque / free_tensor move a queue's
buffers, and which set or wait each issues. The scheduler's analysis, the proof and the simulator all step
queues with it, so these tests pin the rules once; the queue tests of each user check the rest."""
from __future__ import annotations

import pytest

from asc_trace.enums import TPosition
from asc_trace.graph.node import Pipe
from asc_trace.graph.queue_model import HANDS_OUT, QueSlots, que_event


def test_the_ops_that_hand_out_a_buffer():
    assert HANDS_OUT == {"alloc_tensor", "deque"}


def test_buffers_go_round_first_in_first_out():
    q = QueSlots.fresh(3)
    handed = []
    for _ in range(7):                     # alloc, enque, deque, free: one tile through the queue
        slot, _first, q = q.hand_out("alloc_tensor")
        q = q.take_back("enque", slot)
        got, _, q = q.hand_out("deque")
        assert got == slot
        q = q.take_back("free_tensor", got)
        handed.append(slot)
    assert handed == [0, 1, 2, 0, 1, 2, 0]
    assert q.free == (1, 2, 0) and q.inq == ()


def test_two_in_flight_keep_their_order():
    q = QueSlots.fresh(2)
    a, _, q = q.hand_out("alloc_tensor")
    b, _, q = q.hand_out("alloc_tensor")
    assert q.hand_out("alloc_tensor") is None          # both buffers held: the NPU would wait forever
    q = q.take_back("enque", b)
    q = q.take_back("enque", a)
    assert [q.hand_out("deque")[0], q.hand_out("deque")[2].hand_out("deque")[0]] == [b, a]


def test_first_use_is_reported_once_per_buffer():
    q = QueSlots.fresh(2)
    firsts = []
    for _ in range(4):
        slot, reused, q = q.hand_out("alloc_tensor")
        firsts.append((slot, reused))
        q = q.take_back("free_tensor", slot)
    assert firsts == [(0, False), (1, False), (0, True), (1, True)]


def test_untracked_use_counts_every_alloc_as_a_reuse():
    """The proof reads first use from its flag state: its QueSlots carry no `used` set, so path states that
    differ only in how often a buffer was used compare equal."""
    q = QueSlots.fresh(1, track_use=False)
    slot, reused, after = q.hand_out("alloc_tensor")
    assert (slot, reused, after.used) == (0, True, None)
    assert after.take_back("free_tensor", 0) == q


def test_deque_of_an_empty_queue_hands_out_nothing():
    assert QueSlots.fresh(2).hand_out("deque") is None


def test_held_is_neither_free_nor_enqueued():
    q = QueSlots.fresh(3)
    a, _, q = q.hand_out("alloc_tensor")
    b, _, q = q.hand_out("alloc_tensor")
    q = q.take_back("enque", b)
    assert [q.held(s) for s in range(3)] == [True, False, False]


def test_renaming_moves_every_list():
    q = QueSlots((1, 0), (2,), frozenset({0, 2}))
    assert q.renamed({0: 2, 1: 0, 2: 1}) == QueSlots((0, 2), (1,), frozenset({2, 1}))


@pytest.mark.parametrize("pos, op, want", [
    (TPosition.VECIN, "alloc_tensor", (Pipe.MTE2, "wait", "free")),
    (TPosition.VECIN, "enque", (Pipe.MTE2, "set", "enq")),
    (TPosition.VECIN, "deque", (Pipe.V, "wait", "enq")),
    (TPosition.VECIN, "free_tensor", (Pipe.V, "set", "free")),
    (TPosition.VECOUT, "alloc_tensor", (Pipe.V, "wait", "free")),
    (TPosition.VECOUT, "deque", (Pipe.MTE3, "wait", "enq")),
])
def test_each_operation_issues_one_event_of_its_buffer(pos, op, want):
    pipe, kind, event = want
    assert que_event(pos, op, 7, 1) == (pipe, kind, ("que", 7, 1, event))


def test_a_first_alloc_and_a_queue_without_pipes_issue_nothing():
    assert que_event(TPosition.VECIN, "alloc_tensor", 7, 0, reused=False) is None
    assert que_event(TPosition.VECCALC, "enque", 7, 0) is None
