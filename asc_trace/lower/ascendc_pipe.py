"""The kernel's TPipe as the emitted Ascend C declares it: which TPipe there is (the user's, or one the
lowering adds), where raw LocalTensors live, and which event ids the TPipe reserves.

Raw LocalTensors (`asc.LocalTensor(dtype, pos, addr, len)`: static tensors at a UB byte address). The
raw `LocalTensor<T>(TPosition, addr, size)` constructor exists in CANN 8.5+ (asc-devkit
include/basic_api/kernel_tensor.h) but not in CANN 8.1.RC1 (its interface/kernel_tensor.h has only the
TBuffAddr one); what both generations have is a TBuf initialised through a TPipe and
`TBuf::GetWithOffset<T>(size, byte offset)` (asc-devkit impl/basic_api/kernel_tbuf_impl.h, 8.1.RC1
impl/kernel_tbuf_impl.h). So a kernel whose UB is all raw tensors places them in one TBuf over the usable
UB, initialised first, at the top of the kernel: tensor t at byte a is `ub.GetWithOffset<T>(n, a)`, the
same bytes the raw constructor names (the TPipe's UB pool starts at the UB's start).

A kernel that also gives the TPipe buffers (init_buffer) cannot: the placement TBuf would move the
TPipe's own buffers, which the simulator places from byte 0 as the API does. Such a kernel keeps the
raw constructor, and lowering it for CANN 8.x (no raw constructor) is refused with a ToolchainError.

Event ids. With a TPipe, the TQue framework takes event ids from the same pool as explicit flags, so
the kernel reserves its flags' ids from it (AllocEventID) and indexes them through a table; the
API's own synchronisation (ReduceSum/Max/Min: graph/hb.py API_SYNC) then takes the first id left free.
Without a user TPipe the lowering adds one that reserves nothing: those calls take id 0 of their
events, which the scheduler keeps for them (graph/analysis.py) and the simulator checks.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .. import config
from ..cube_enums import CUBE_MEMORY
from ..enums import HardEvent
from ..errors import SyncError, ToolchainError, TraceError
from ..graph.expr import Const, Expr, free_vars, substitute
from ..graph.hb import api_events
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node
from ..graph.ops.sync import FLAG_OPS
from .cexpr import PREFIX

GENERATED_PIPE = f"{PREFIX}pipe"
PLACEMENT = f"{PREFIX}ub"
NUM_IDS = 8


@dataclass
class PipePlan:
    var: str | None                   # the TPipe's C name, or None: the kernel needs none
    user: Node | None                 # the user's tpipe node
    placement: bool                   # raw LocalTensors through the placement TBuf
    hoist: bool                       # the user's TPipe is declared at the top, not at its node
    events: dict[HardEvent, list[int]] | None = None     # ids the TPipe reserves, per event
    api: set[HardEvent] = field(default_factory=set)     # events the API's own synchronisation takes

    def event_id(self, ev: HardEvent, text: str) -> str | None:
        """The C expression of a flag's id (`text` is the id as C): through the table when reserved."""
        return None if self.events is None else f"{PREFIX}ev_{ev.name}[{text}]"

    def declaration(self) -> list[str]:
        """The TPipe, its id table and the placement TBuf, as statements."""
        out = [f"AscendC::TPipe {self.var};"]
        if self.events:
            for ev, ids in self.events.items():
                out.append(f"int32_t {PREFIX}ev_{ev.name}[{max(ids) + 1}];")
                for i in ids:
                    out.append(f"{PREFIX}ev_{ev.name}[{i}] = static_cast<int32_t>("
                               f"{self.var}.AllocEventID<AscendC::HardEvent::{ev.name}>());")
        if self.placement:
            out.append(f"AscendC::TBuf<AscendC::TPosition::VECCALC> {PLACEMENT};")
            out.append(f"{self.var}.InitBuffer({PLACEMENT}, static_cast<uint32_t>({config.UB_USABLE}));")
        return out

    def release(self) -> list[str]:
        return [f"{self.var}.ReleaseEventID<AscendC::HardEvent::{ev.name}>({PREFIX}ev_{ev.name}[{i}]);"
                for ev, ids in (self.events or {}).items() for i in ids]


def plan_pipe(g: KernelGraph, generation: int | None) -> PipePlan:
    """How the kernel's TPipe is emitted, for `generation` (8: CANN 8.x headers, 9: CANN 8.5+ / asc-devkit,
    None: what both have, as for the host backends)."""
    # a LocalTensor of no elements (pyasc's `asc.LocalTensor(dtype)`, bound later by a depth-0 queue) is the
    # default-constructed one, which both generations have: it places nothing
    raw = [n for n in g if n.op == "local_tensor" and not (isinstance(n.args[2], Const) and n.args[2].value == 0)]
    buffers = any(n.op == "init_buffer" or n.op == "init_buf_pool" for n in g)     # a TBufPool's block is the TPipe's
    user = next((n for n in g if n.op == "tpipe"), None)
    api = {ev for n in g for ev in api_events(n)}
    if raw and buffers and generation == 8:
        raise ToolchainError(
            "this kernel places raw LocalTensors and also gives the TPipe buffers (init_buffer); CANN 8.x's "
            "Ascend C has no LocalTensor(TPosition, addr, size) constructor to place them with, and a placement "
            "TBuf would move the TPipe's own buffers", raw[0].loc,
            hint="use CANN 8.5 or later, or allocate every tensor one way: only raw LocalTensors, or only "
                 "TQue / TBuf tensors")
    cube = any(n.op == "local_tensor" and n.args[0] in CUBE_MEMORY for n in raw)
    if cube and generation == 8:
        raise ToolchainError("this cube kernel places its L1 / L0 tensors with the LocalTensor(TPosition, addr, size) "
                             "constructor, which CANN 8.x's Ascend C does not have", raw[0].loc,
                             hint="build it with CANN 8.5 or later (asc-devkit)")
    placement = bool(raw) and not buffers and not cube     # the cube's memories are no TBuf's to place in
    var = f"{PREFIX}t{user.id}" if user is not None else (GENERATED_PIPE if placement or api else None)
    # a TPipe inside a runtime branch (pyasc's tutorials create it under `if block_idx < used_core_num`) is
    # declared at the top too: its id table is released at the kernel's end, outside the branch's C block
    hoist = user is not None and (placement or _flags_before(g, user) or bool(user.regions))
    plan = PipePlan(var, user, placement, hoist=hoist, api=api)
    if plan.hoist:
        _check_top_level(g, user)
    if user is not None:
        plan.events = _event_table(g)
        _check_free_ids(plan, g)
    return plan


def _flags_before(g: KernelGraph, pipe: Node) -> bool:
    """Whether a flag (the user's or the scheduler's) comes before the TPipe in program order: its id is read
    from the table the TPipe's declaration fills, so that declaration must be at the kernel's top."""
    for n in g:
        if n is pipe:
            return False
        if n.op in FLAG_OPS:
            return True
    return False


def _check_top_level(g: KernelGraph, pipe: Node) -> None:
    # in a branch it is one TPipe whichever side runs; in a loop it would be one per iteration
    depth = 0
    for n in g:
        if n is pipe and depth:
            raise TraceError("this kernel's TPipe must be created outside loops: the lowering declares it at "
                             "the top of the kernel (it places raw LocalTensors, flags before it take their "
                             "event ids from it, or it is created in a branch)",
                             n.loc, hint="create the TPipe first, at the top of the kernel")
        depth += n.op in ("for", "while")
        depth -= n.op in ("end_for", "end_while")


def _event_table(g: KernelGraph) -> dict[HardEvent, list[int]] | None:
    """Every id the kernel's flags use, per event (reserved from the TPipe so that the TQue framework
    and the API's own synchronisation take others)."""
    flags = [n for n in g if n.op in FLAG_OPS]
    if not flags:
        return None
    table: dict[HardEvent, set[int]] = {}
    for n in flags:
        ev, eid = n.args
        values = _possible_values(eid)
        if values is None:
            raise TraceError("with a TPipe, event ids must be constants or depend only on loop indices, so "
                             "that the kernel can reserve them from the TPipe", n.loc)
        table.setdefault(ev, set()).update(values)
    return {ev: sorted(ids) for ev, ids in sorted(table.items())}


def _check_free_ids(plan: PipePlan, g: KernelGraph) -> None:
    """The API's own synchronisation takes the first id of its events the TPipe has not reserved
    (TPipe::FetchEventID): the kernel's flags must leave one (the simulator reports the same, graph/hb.py)."""
    for ev in sorted(plan.api, key=lambda e: e.value):
        held = (plan.events or {}).get(ev, [])
        if len(held) >= NUM_IDS:
            at = next(n for n in g if ev in api_events(n))
            raise SyncError(f"the kernel's flags reserve all {NUM_IDS} ids of HardEvent.{ev.name} from its TPipe, "
                            f"but this call takes one of them itself (TPipe::FetchEventID)", node=at,
                            hint=f"leave one HardEvent.{ev.name} id unused")


def _possible_values(e: Expr, limit: int = 64) -> set[int] | None:
    """Every value an event id can take, when it depends only on loop indices (tried 0..limit-1)."""
    vs = free_vars(e)
    if any(v.kind != "loop" for v in vs):
        return None
    if not vs:
        return {int(e.value)} if isinstance(e, Const) else None
    out: set[int] = set()
    for combo in itertools.product(range(limit), repeat=len(vs)):
        r = substitute(e, dict(zip(vs, (Const(c) for c in combo))))
        if not isinstance(r, Const):
            return None
        out.add(int(r.value))
    return out if all(0 <= v < NUM_IDS for v in out) else None
