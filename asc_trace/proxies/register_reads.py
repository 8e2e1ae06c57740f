"""Reads of the vector unit's status registers that pyasc exposes as functions: `get_gather_mask_remain_count()`
(Ascend C GetGatherMaskRemainCount: RSVD_CNT, the elements the last GatherMask kept) and `get_mrg_sort_result()`
(GetMrgSortResult: VMS4_SR, how many structures of each list the last MrgSort with exhausted suspension used).

asc_trace does not model these registers, so each call traces and returns a value that refuses to be used: a kernel
that only reads it (as pyasc's own unit tests do) traces and lowers; one that computes with it gets a clear error
at the line that uses it."""
from __future__ import annotations

from ..errors import TraceError
from ..graph.expr import Expr
from .context import current
from .scalar import Scalar
from .source_loc import user_loc


class RegisterNotReadBack(Scalar):
    """A register value the scalar unit would read back; any use of it while tracing is refused."""

    __slots__ = ("_what", "_hint")

    def __init__(self, what: str, hint: str) -> None:
        self._what, self._hint = what, hint

    @property  # type: ignore[override]
    def expr(self) -> Expr:
        raise TraceError(f"{self._what} is data in a status register the scalar unit reads back, which asc_trace "
                         "does not model", user_loc(), hint=self._hint)

    def __repr__(self) -> str:
        return f"<{self._what}: not read back>"


def get_gather_mask_remain_count() -> Scalar:
    """Ascend C GetGatherMaskRemainCount(): the elements the last asc.gather_mask kept (the RSVD_CNT register).
    Traces; using the value is refused (asc_trace does not model the register)."""
    current("asc.get_gather_mask_remain_count")
    return RegisterNotReadBack("the count asc.get_gather_mask_remain_count() returns (RSVD_CNT)",
                               "use the count asc.gather_mask returns for a built-in pattern (1-7), which is known "
                               "while tracing")


def get_mrg_sort_result() -> tuple[Scalar, Scalar, Scalar, Scalar]:
    """Ascend C GetMrgSortResult(list1, list2, list3, list4): how many structures of each list the last merge sort
    with exhausted suspension used (the VMS4_SR register). Traces; using a value is refused."""
    current("asc.get_mrg_sort_result")
    hint = "merge without exhausted suspension, where every structure of every list is used"
    return tuple(RegisterNotReadBack(f"list {i + 1}'s count of asc.get_mrg_sort_result() (VMS4_SR)", hint)
                 for i in range(4))  # type: ignore[return-value]
